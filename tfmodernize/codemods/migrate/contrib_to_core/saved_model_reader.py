"""``tf.contrib.saved_model``'s ``read_saved_model`` written into the file that calls it.

TF 1.15's ``tensorflow.contrib.saved_model.python.saved_model.reader.read_saved_model(dir)``
parsed the ``SavedModel`` protocol buffer of a SavedModel folder: its ``saved_model.pb`` (binary)
if there was one, else its ``saved_model.pbtxt`` (text format, merged), raising ``IOError`` when
neither existed or the file could not be parsed. TensorFlow 2.x keeps that function only under a
private module (``loader_impl.parse_saved_model``); the proto, ``tf.io.gfile`` and protobuf's
parsers are what it used and are public. ``TEMPLATE`` is the same function in those;
contrib-to-core writes it once after a file's imports and points the file's calls at it.
"""

from __future__ import annotations

from string import Template

#: contrib's parameters, in order.
PARAMETERS = ("saved_model_dir",)

#: The names the function reads beside TensorFlow, and the imports binding them.
IMPORTS = {
    "os": "os",
    "message": "google.protobuf.message",
    "text_format": "google.protobuf.text_format",
    "saved_model_pb2": "tensorflow.core.protobuf.saved_model_pb2",
}

#: The function, for a file whose TensorFlow is ``$tf``, named ``$name``.
TEMPLATE = Template('''\
def $name(saved_model_dir):
    """tf.contrib.saved_model's read_saved_model, which TensorFlow 2.x does not
    have: the SavedModel protocol buffer of the folder, parsed from its
    saved_model.pb, else from its saved_model.pbtxt; IOError if neither exists
    or it cannot be parsed. Written here by tfmodernize; move it to a module
    your files share."""
    binary = os.path.join(saved_model_dir, "saved_model.pb")
    text = os.path.join(saved_model_dir, "saved_model.pbtxt")
    if not $tf.io.gfile.exists(binary) and not $tf.io.gfile.exists(text):
        raise IOError("SavedModel file does not exist at: %s" % saved_model_dir)
    saved_model = saved_model_pb2.SavedModel()
    if $tf.io.gfile.exists(binary):
        with $tf.io.gfile.GFile(binary, "rb") as f:
            content = f.read()
        try:
            saved_model.ParseFromString(content)
        except message.DecodeError as error:
            raise IOError("Cannot parse file %s: %s." % (binary, error))
    else:
        with $tf.io.gfile.GFile(text, "rb") as f:
            content = f.read()
        try:
            text_format.Merge(content.decode("utf-8"), saved_model)
        except text_format.ParseError as error:
            raise IOError("Cannot parse file %s: %s." % (text, error))
    return saved_model
''')
