"""Numeric verification: run a before and an after script on TensorFlow
and prove that they leave equal values.

- ``runner``: long-lived TensorFlow child processes of two modes (``tf1``: plain
  ``import tensorflow`` behaves as TF 1.x; ``tf2``: plain TF 2 with Keras 3), each running many
  scripts in fresh namespaces, with a timeout per script; ``Harness`` owns them.
- ``child``: the code that runs inside those children (the only place TensorFlow is imported).
- ``compare``: the comparison rule (kinds, dtypes, shapes, tolerances) and its messages.
- ``verdict``: a before/after ``Pair`` and its ``Verdict``; ``verify_pairs`` runs a batch.
- ``fixtures``: ``fixtures/<codemod>/<case>/`` discovery and the ``case.toml`` schema.
- ``report``: rich rendering of a verdict; ``command``: ``tfmodernize verify OLD NEW``.

Importing this package (or ``command``) imports neither TensorFlow nor numpy.
"""

DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6
