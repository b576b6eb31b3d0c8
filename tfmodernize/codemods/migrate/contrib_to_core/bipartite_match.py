"""``tf.contrib.image.bipartite_match`` written into the file that calls it, in TensorFlow ops.

TF 1.15's ``bipartite_match(distance_mat, num_valid_rows, top_k=-1)`` ran a C++ kernel that no
TensorFlow 2.x and no maintained package has: it pushed every (row, column) pair of the first
``num_valid_rows`` rows (``static_cast<int>(n + 0.1)``, all rows when negative; more rows than
the matrix has is an error) into a priority queue by distance, then took the pairs from the
smallest distance up, matching a pair whose row and column were both still free, until
``top_k`` pairs were matched (all when ``top_k <= 0``) or the queue ran out. It returned each
row's column and each column's row, int32, -1 for unmatched.

``TEMPLATE`` is the same greedy matching as a ``foldl`` of TensorFlow ops (graph mode and eager,
shapes known only when run; names that mean the same in TF1 and TF2, so the file can still
migrate): each step takes the smallest distance among the free rows
and columns, so ``min(valid rows, columns, top_k)`` steps match what the queue matched. Equal
distances are taken in row-major order (the lowest row, then the lowest column): contrib took
them in its heap's order (``std::priority_queue``), which no documentation fixed and which
depends on the whole matrix; where equal distances compete for a row or a column, the two can
match them otherwise. contrib-to-core writes it once after a file's imports and points the
file's calls of contrib's at it.
"""

from __future__ import annotations

from string import Template

#: contrib's parameters, in order.
PARAMETERS = ("distance_mat", "num_valid_rows", "top_k", "name")

#: The function, for a file whose TensorFlow (``tensorflow`` or ``tensorflow.compat.v1``: it
#: uses the names both have) is ``$tf``, named ``$name``.
TEMPLATE = Template('''\
def $name(distance_mat, num_valid_rows, top_k=-1):
    """tf.contrib.image.bipartite_match, which TensorFlow 2.x does not have,
    in TensorFlow ops: the greedy matching of rows to columns by smallest
    distance, among the first `num_valid_rows` rows (all if negative), until
    `top_k` pairs (all if not positive). Returns each row's column and each
    column's row, int32, -1 where unmatched. Equal distances are taken in
    row-major order (contrib's priority queue had an order of its own).
    Written here by tfmodernize; move it to a module your files share."""
    distance = $tf.convert_to_tensor(distance_mat, $tf.float32)
    rows, columns = $tf.shape(distance)[0], $tf.shape(distance)[1]
    given = $tf.reshape($tf.cast(num_valid_rows, $tf.float32), [-1])[0]
    # (negative: every row; else contrib's rounding of the count)
    valid = $tf.cast(given < 0, $tf.int32) * rows + $tf.cast(
        $tf.maximum(given, 0.0) + 0.1, $tf.int32)
    check = $tf.debugging.Assert(
        valid <= rows, ["num_valid_rows is more than distance_mat's rows"])
    with $tf.control_dependencies([check]):
        valid = $tf.identity(valid)
    matches = $tf.minimum(valid, columns)
    if top_k > 0:
        matches = $tf.minimum(matches, top_k)
    row_index, column_index = $tf.range(rows), $tf.range(columns)
    cells = $tf.reshape($tf.range(rows * columns), $tf.shape(distance))

    def match_one(matched, _):
        row_to_col, col_to_row = matched
        free_rows = $tf.logical_and(row_to_col < 0, row_index < valid)
        free = $tf.logical_and(free_rows[:, None], (col_to_row < 0)[None, :])
        smallest = $tf.reduce_min($tf.boolean_mask(distance, free))
        taken = $tf.logical_and(free, distance <= smallest)
        first = $tf.reduce_min($tf.boolean_mask(cells, taken))
        row, column = first // columns, first % columns
        new_row = $tf.cast($tf.equal(row_index, row), $tf.int32) * (column + 1)
        new_column = $tf.cast($tf.equal(column_index, column), $tf.int32)
        return row_to_col + new_row, col_to_row + new_column * (row + 1)

    return $tf.foldl(
        match_one, $tf.range(matches),
        initializer=(row_index * 0 - 1, column_index * 0 - 1))
''')
