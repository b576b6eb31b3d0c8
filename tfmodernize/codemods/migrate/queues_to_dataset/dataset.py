"""Queues-to-dataset's writing: the ``tf.data`` pipeline that replaces a producer pipeline's
batch line, and how the codemod spells what it writes (``Writing``)."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tfmodernize.codemods.migrate.queues_to_dataset.pipeline import Pipeline, assignment
from tfmodernize.layout import fitted
from tfmodernize.names import fresh_name, used_names
from tfmodernize.syntax import argument, is_none, source
from tfmodernize.tfsymbols import TFNames


@dataclass(frozen=True)
class Writing:
    """How the code written is spelled and laid out, decided by the codemod once the reading
    succeeded: TF2's top level through the alias in scope, the one-shot iterator function, the
    file's width and the depth of the line replaced."""

    root: str
    make_iterator: str
    width: int
    depth: int


def dataset_statements(
    module: cst.Module, pipeline: Pipeline, writing: Writing, names: TFNames
) -> list[cst.BaseStatement]:
    """What replaces the batch line: the map function (when the records are computed on),
    the dataset, its iterator and ``<batch names> = iterator.get_next()``."""
    taken = used_names(module)
    tf = writing.root
    producer, batch = pipeline.call, pipeline.batch
    epochs = argument(producer, 1, "num_epochs")
    seed = argument(producer, 3, "seed")
    seeded = f", seed={source(seed)}" if seed is not None else ""
    dataset = fresh_name("dataset", taken)
    taken.add(dataset)
    if pipeline.reader is not None:
        start = f"{tf}.data.Dataset.from_tensor_slices({source(argument(producer, 0, 'string_tensor'))})"
    else:
        sliced = [source(e.value) for e in argument(producer, 0, "tensor_list").elements]
        # One tensor sliced gives tensors (TF1 returned a list of one), several give tuples.
        start = (
            f"{tf}.data.Dataset.from_tensor_slices({sliced[0] if len(sliced) == 1 else '(' + ', '.join(sliced) + ')'})"
        )
    statements: list[cst.BaseStatement] = []
    steps = []
    if pipeline.shuffled_producer:
        # TF1 drew a new order of the whole list every epoch: a buffer as large as the list.
        statements.append(cst.parse_statement(f"{dataset} = {start}\n"))
        start = dataset
        steps.append(f".shuffle({dataset}.cardinality(){seeded})")
    steps.append(".repeat()" if is_none(epochs) else f".repeat({source(epochs)})")
    if pipeline.reader is not None:
        if pipeline.skip is not None:
            steps.append(
                f".flat_map(lambda filename: {tf}.data.{pipeline.reader}(filename).skip({source(pipeline.skip)}))"
            )
        else:
            steps.append(f".flat_map({tf}.data.{pipeline.reader})")
    outputs = [e.value for e in argument(batch, 0, "tensors").elements]
    definition = None
    if pipeline.per_record or [source(o) for o in outputs] != pipeline.records:
        parse = fresh_name("parse_record", taken)
        taken.add(parse)
        returned = outputs[0] if len(outputs) == 1 else cst.Tuple([cst.Element(o) for o in outputs], lpar=[], rpar=[])
        definition = cst.FunctionDef(
            cst.Name(parse),
            cst.Parameters([cst.Param(cst.Name(r)) for r in pipeline.records]),
            cst.IndentedBlock([*pipeline.per_record, cst.SimpleStatementLine([cst.Return(returned)])]),
        )
        steps.append(f".map({parse})")
    size = source(argument(batch, 1, "batch_size"))
    if names.is_tf(batch.func, "train.shuffle_batch"):
        buffer = argument(batch, 3, "min_after_dequeue")
        batch_seed = argument(batch, 5, "seed")
        steps.append(
            f".shuffle({source(buffer) if buffer is not None else size}"
            f"{f', seed={source(batch_seed)}' if batch_seed is not None else ''})"
        )
    smaller = argument(batch, None, "allow_smaller_final_batch")
    keep_last = isinstance(smaller, cst.Name) and smaller.value == "True"
    steps.append(f".batch({size}{'' if keep_last else ', drop_remainder=True'})")
    iterator = fresh_name("batches", taken)
    targets = source(assignment(pipeline.batch_line).targets[0].target)
    chain = "".join(f"\n    {step}" for step in steps)
    # The chain's first line, one step in, wrapped (its own lines one step in too) when it
    # is wider than the file's width there.
    head = fitted(cst.parse_statement(f"{start}\n"), writing.width, writing.depth + 1, further=True)
    start = source(head).rstrip("\n").replace("\n", "\n    ")
    statements += [
        cst.parse_statement(f"{dataset} = (\n    {start}{chain}\n)\n"),
        cst.parse_statement(f"{iterator} = {writing.make_iterator}({dataset})\n"),
        cst.parse_statement(f"{targets} = {iterator}.get_next()\n"),
    ]
    # The comments above the producer and the batch describe the pipeline: they stay above it.
    kept = [*pipeline.producer.leading_lines, *pipeline.batch_line.leading_lines]
    if definition is not None:
        blank = cst.EmptyLine(indent=False)
        statements[0] = statements[0].with_changes(leading_lines=[blank, blank])
        comments = [line for line in kept if line.comment is not None]
        statements.insert(0, definition.with_changes(leading_lines=[blank, blank, *comments]))
    else:
        statements[0] = statements[0].with_changes(leading_lines=kept)
    return statements
