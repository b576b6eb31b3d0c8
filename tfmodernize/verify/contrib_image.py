"""``tf.contrib.image`` for TF1 scripts run by the verify harness: its ``bipartite_match``, the
part of it tfmodernize rewrites, computed in numpy as TF 1.15's C++ kernel computed it.

No TensorFlow 2 has ``tf.contrib``, nor the kernel. ``greedy_match`` follows it step by step:
the (row, column) pairs of the valid rows pushed, row-major, into a binary heap ordered by
distance, as libstdc++'s ``std::priority_queue`` (TensorFlow's Linux builds) orders one, then
popped, a pair matched when its row and column are both free, until ``top_k`` pairs are
matched. The heap is written out (sift up on push, the hole moved to a leaf on pop) because it
decides the order of equal distances, which the op's documentation leaves open.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np


def greedy_match(
    distance_mat: Any,
    num_valid_rows: Any,
    top_k: int = -1,
) -> tuple[np.ndarray, np.ndarray]:
    """(each row's column, each column's row), int32, -1 where unmatched."""
    distance = np.asarray(distance_mat, np.float32)
    if distance.ndim != 2:
        raise ValueError(f"distance_mat should be 2-dimensional, but got shape {distance.shape}")
    rows, columns = distance.shape
    wanted = np.asarray(num_valid_rows, np.float32).reshape(-1)
    if wanted.size != 1:
        raise ValueError(f"num_valid_rows should have 1 element, but got {wanted.size}")
    valid = rows if wanted[0] < 0 else int(wanted[0] + np.float32(0.1))
    if valid > rows:
        raise ValueError(f"There should be at least {valid} rows in distance_mat, not {rows}")
    limit = top_k if top_k > 0 else valid * columns
    heap: list[tuple[int, int, float]] = []
    for row in range(valid):
        for column in range(columns):
            heap.append((row, column, float(distance[row, column])))
            _sift_up(heap, len(heap) - 1, heap[-1])
    row_to_col = np.full(rows, -1, np.int32)
    col_to_row = np.full(columns, -1, np.int32)
    matched = 0
    while heap:
        row, column, _ = heap[0]
        if row_to_col[row] == -1 and col_to_row[column] == -1:
            row_to_col[row], col_to_row[column] = column, row
            matched += 1
            if matched >= limit:
                break
        _pop(heap)
    return row_to_col, col_to_row


def _after(a: tuple[int, int, float], b: tuple[int, int, float]) -> bool:
    """Whether the heap puts ``a`` below ``b``: ``b`` is strictly nearer."""
    return b[2] < a[2]


def _sift_up(heap: list, hole: int, value: tuple[int, int, float]) -> None:
    parent = (hole - 1) // 2
    while hole > 0 and _after(heap[parent], value):
        heap[hole] = heap[parent]
        hole, parent = parent, (parent - 1) // 2
    heap[hole] = value


def _pop(heap: list) -> None:
    """Remove the top: the hole it leaves goes down to a leaf along the nearer children (the
    right one on a tie), and the last element goes in it and up."""
    last = heap.pop()
    size = len(heap)
    if not size:
        return
    hole = child = 0
    while child < (size - 1) // 2:
        child = 2 * (child + 1)
        if _after(heap[child], heap[child - 1]):
            child -= 1
        heap[hole], hole = heap[child], child
    if size % 2 == 0 and child == (size - 2) // 2:
        child = 2 * (child + 1)
        heap[hole], hole = heap[child - 1], child - 1
    _sift_up(heap, hole, last)


def image_module(v1_module: Any) -> types.ModuleType:
    """``tf.contrib.image`` with ``bipartite_match`` as an op of ``v1_module``'s graphs (a
    ``numpy_function``), also importable as ``tensorflow.contrib.image`` and
    ``tensorflow.contrib.image.python.ops.image_ops``."""

    def bipartite_match(distance_mat, num_valid_rows, top_k=-1, name="bipartite_match"):
        with v1_module.name_scope(name):
            distance = v1_module.convert_to_tensor(distance_mat, v1_module.float32)
            valid = v1_module.convert_to_tensor(num_valid_rows, v1_module.float32)
            int32 = v1_module.int32
            row_to_col, col_to_row = v1_module.numpy_function(
                lambda d, n: greedy_match(d, n, top_k), [distance, valid], [int32, int32]
            )
            row_to_col.set_shape(distance.shape[:1])
            col_to_row.set_shape(distance.shape[1:])
            return row_to_col, col_to_row

    image, python, ops, image_ops = modules = [
        types.ModuleType(f"tensorflow.contrib.{name}")
        for name in ("image", "image.python", "image.python.ops", "image.python.ops.image_ops")
    ]
    for made in modules:
        sys.modules[made.__name__] = made
    image.bipartite_match = image_ops.bipartite_match = bipartite_match
    image.python, python.ops, ops.image_ops = python, ops, image_ops
    return image
