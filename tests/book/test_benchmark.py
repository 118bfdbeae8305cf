"""The benchmark's bookkeeping (not its timings: speed is measured by `make bench`)."""

import numpy as np
import pytest
import torch

from companion.book.benchmark import SPEED_METHODS, benchmark, format_benchmark, one_torch_thread


def test_rows_report_every_method_with_ratios_to_the_companion():
    rows = benchmark([(32, 8), (16, 4)], rounds=2)
    assert [row["method"] for row in rows] == list(SPEED_METHODS) * 2
    by_method = {row["method"]: row for row in rows if row["seq_len"] == 32}
    assert by_method["companion (numpy)"]["ratio"] == 1.0
    for row in rows:
        assert row["seconds"] > 0 and row["ratio"] > 0
    assert by_method["companion (numpy)"]["max_error"] <= 2.0**-25
    assert by_method["pow recipe (torch)"]["max_error"] > 0


def test_every_method_builds_the_same_float32_table():
    expected = SPEED_METHODS["float64 then cast (numpy)"](100, 16)
    for name, build in SPEED_METHODS.items():
        table = build(100, 16)
        table = table.numpy() if isinstance(table, torch.Tensor) else table
        assert table.dtype == np.float32 and table.shape == (100, 16), name
        np.testing.assert_allclose(table, expected, atol=1e-5, err_msg=name)


def test_torch_threads_are_restored():
    before = torch.get_num_threads()
    with one_torch_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_format_has_one_line_per_row():
    rows = benchmark([(16, 4)], rounds=1)
    assert len(format_benchmark(rows).splitlines()) == 1 + len(rows)


def test_format_names_the_baseline_the_ratios_divide_by():
    rows = benchmark([(16, 4)], rounds=1, baseline="pow recipe (torch)")
    lines = format_benchmark(rows, reference="pow recipe (torch)").splitlines()
    assert "x pow recipe (torch)" in lines[0]
    recipe_line = next(line for line in lines if "pow recipe (torch)" in line and line.startswith("16"))
    assert recipe_line.split()[-2] == "1.00"


@pytest.mark.parametrize("kwargs, message", [({"rounds": 0}, "rounds must be at least 1"),
                                             ({"sizes": [(16, 5)]}, "d_model must be a positive even")])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        benchmark(**{"sizes": [(16, 4)], **kwargs})
