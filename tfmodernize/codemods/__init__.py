"""The built-in codemod catalogue, one folder per family: ``migrate`` (TFM1xx: TF1 code rewritten
as TF2), ``tf2`` (TFM2xx: TF2 anti-patterns fixed) and ``report`` (TFM3xx: findings only). Each
codemod is a module (a package when it outgrows ~500 lines) of its family's folder, found by the
registry (``tfmodernize.registry.builtin_codemods``) and run in catalogue order."""
