"""The built-in codemod catalogue: one codemod per module, found by the registry
(``tfmodernize.codemod.builtin_codemods``) and run in catalogue order.

The folder sits at the repository's root and installs as ``tfmodernize.codemods``
(``pyproject.toml``'s ``package-dir``), never as a top-level ``codemods`` package that a user's
own ``codemods/`` folder would shadow."""
