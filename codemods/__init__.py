"""The built-in codemod catalogue: one codemod per module, found by the registry
(``tfmodernize.codemod.builtin_codemods``) and run in order of their codes."""
