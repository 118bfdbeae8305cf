"""The layer as users run it: torch.compile(fullgraph=True, dynamic=True), torch.export, vmap.

Tracing is checked on every forward path with dynamo's eager backend (cheap: no code generation),
counting graphs with a CompileCounter; Inductor compiles once, for the cases only it can break:
one dynamic-shape compile over many lengths, in half precision (its CPU code generation of the
half-format rounding).
"""

import pytest
import torch
from torch._dynamo.testing import CompileCounter, CompileCounterWithBackend
from torch.export import Dim, export

from companion import SinusoidalPositionalEncoding, round_to_dtype, torch_sinusoidal_encoding

D_MODEL, MAX_LEN = 16, 64


def compiled(function, backend):
    torch._dynamo.reset()
    return torch.compile(function, fullgraph=True, dynamic=True, backend=backend)


def layer(**options):
    return SinusoidalPositionalEncoding(D_MODEL, **{"max_len": MAX_LEN, **options}).eval()


IDS = torch.tensor([[0, 1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 2, 3, 4, 5, 6, 7, 8]])  # inside the cache
IDS_PAST = IDS + torch.tensor([[0], [100]])  # the second row past max_len
PATHS = {
    "cached slice": (layer(), lambda module, x: module(x)),
    "offset inside the cache": (layer(), lambda module, x: module(x, positions=5)),
    "offset past max_len": (layer(), lambda module, x: module(x, positions=MAX_LEN + 7)),
    "negative offset": (layer(allow_negative_positions=True), lambda module, x: module(x, positions=-4)),
    "negative ids": (layer(allow_negative_positions=True), lambda module, x: module(x, positions=IDS - 3)),
    "0-d tensor offset": (layer(), lambda module, x: module(x, positions=torch.tensor(3))),
    "position ids (seq_len,)": (layer(), lambda module, x: module(x, positions=IDS[0])),
    "position ids (batch, seq_len)": (layer(), lambda module, x: module(x, positions=IDS)),
    "position ids past max_len": (layer(), lambda module, x: module(x, positions=IDS_PAST)),
    "max_len=None": (layer(max_len=None), lambda module, x: module(x)),
    "x in another dtype than the cache": (layer(), lambda module, x: module(x.double())),
    "x in bfloat16, offset": (layer(), lambda module, x: module(x.bfloat16(), positions=2)),
    "seq-first": (layer(batch_first=False), lambda module, x: module(x.transpose(0, 1))),
    "seq-first, ids": (layer(batch_first=False), lambda module, x: module(x.transpose(0, 1), positions=IDS)),
    "concatenated, tensor2tensor, no scale": (
        layer(layout="concatenated", spacing="tensor2tensor", scale=False), lambda module, x: module(x, positions=9)),
}


@pytest.mark.parametrize("path", PATHS)
def test_every_forward_path_compiles_with_fullgraph_and_dynamic_shapes_and_equals_eager(path):
    module, call = PATHS[path]
    counter = CompileCounter()
    function = compiled(call, counter)
    torch.manual_seed(0)
    for seq_len in (9, 9):  # the same shapes again: no second graph
        x = torch.randn(2, seq_len, D_MODEL)
        expected = call(module, x)  # eagerly first: with max_len=None this grows the cache the graph then reads
        assert torch.equal(function(module, x), expected)
    assert counter.frame_count == 1


def test_under_compile_the_cache_of_max_len_none_does_not_grow():
    module = layer(max_len=None)
    function = compiled(module, "eager")
    x = torch.randn(2, 40, D_MODEL)
    assert torch.equal(function(x), layer()(x)) and module.pe.shape[0] == 0  # computed, not cached


def test_one_graph_for_every_length_from_2_to_4096_and_one_for_length_1():
    module = layer()
    counter = CompileCounter()
    function = compiled(module, counter)
    for seq_len in (2, 3, 7, 63, 64, 65, 500, 1000, 4096):  # inside the cache and past it: one torch.cond
        x = torch.randn(3, seq_len, D_MODEL)
        assert torch.equal(function(x), module(x)), seq_len
    assert counter.frame_count == 1
    function(torch.randn(3, 1, D_MODEL))  # torch.compile specialises sizes 0 and 1, for every model
    assert counter.frame_count == 2


def test_a_decoding_loop_compiles_once():
    module = layer()
    counter = CompileCounter()
    function = compiled(module, counter)
    torch.manual_seed(1)
    for step in range(0, 3 * MAX_LEN, 5):  # one token at a time, into and past the cache
        token = torch.randn(2, 1, D_MODEL)
        assert torch.equal(function(token, positions=step), module(token, positions=step)), step
    assert counter.frame_count == 1


def test_the_function_compiles_with_dynamic_shapes():
    counter = CompileCounter()
    function = compiled(lambda positions, base: torch_sinusoidal_encoding(positions, 32, base=base), counter)
    for seq_len in (5, 17, 300):
        positions = torch.arange(seq_len) + 11
        # under tracing every entry is evaluated directly: within a rounding of the eager table (angle addition)
        torch.testing.assert_close(function(positions, 500.0), torch_sinusoidal_encoding(positions, 32, base=500.0),
                                   rtol=0, atol=2.0**-24)
    assert counter.frame_count == 1


# Inductor's own modules call torch.jit.script_method, which torch itself deprecates
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
def test_inductor_compiles_half_precision_on_the_cpu_over_many_lengths():
    # half formats used to fail (frexp in Inductor's CPU vectoriser); the rounding to odd compiles, bit for bit
    module = layer(dtype=torch.float16, scale=False)
    counter = CompileCounterWithBackend("inductor")
    function = compiled(module, counter)
    for seq_len, offset in ((2, 0), (50, 3), (200, 7)):  # inside the cache, then past it
        zeros = torch.zeros(3, seq_len, D_MODEL, dtype=torch.float16)  # x + PE is PE: the rows themselves
        assert torch.equal(function(zeros, positions=offset), module(zeros, positions=offset)), seq_len
    assert counter.frame_count == 1
    values = torch.linspace(-1, 1, 10_001, dtype=torch.float64) * torch.logspace(-7, 0, 10_001, dtype=torch.float64)
    assert torch.equal(round_to_dtype(values, torch.bfloat16),
                       torch.compile(round_to_dtype, fullgraph=True, backend="aot_eager")(values, torch.bfloat16))


# ---- torch.export


def test_export_with_a_dynamic_length_past_max_len_runs_past_max_len():
    module = layer()
    program = export(module, (torch.randn(2, 10, D_MODEL),), dynamic_shapes=({1: Dim("seq_len", max=4 * MAX_LEN)},))
    for seq_len in (1, 3, MAX_LEN, MAX_LEN + 1, 4 * MAX_LEN):
        x = torch.randn(2, seq_len, D_MODEL)
        assert torch.equal(program.module()(x), module(x)), seq_len


def test_export_with_an_automatic_length_and_an_offset():
    module = layer()
    program = export(module, (torch.randn(2, 10, D_MODEL), 5), dynamic_shapes=({1: Dim.AUTO}, Dim.AUTO))
    x = torch.randn(2, 3 * MAX_LEN, D_MODEL)
    assert torch.equal(program.module()(x, 2 * MAX_LEN), module(x, positions=2 * MAX_LEN))


def test_export_with_batch_by_seq_ids_has_no_spurious_guard_on_the_length():
    module = layer()
    ids = torch.arange(10).expand(2, 10)
    program = export(module, (torch.randn(2, 10, D_MODEL), ids), dynamic_shapes=({1: Dim.AUTO}, {1: Dim.AUTO}))
    for seq_len in (2, 1, 3 * MAX_LEN):  # seq_len equal to the batch size, and past max_len
        x, ids = torch.randn(2, seq_len, D_MODEL), torch.arange(seq_len).expand(2, seq_len) + 3
        assert torch.equal(program.module()(x, ids), module(x, positions=ids)), seq_len


# ---- vmap


def test_vmap_over_positions_computes_the_rows():
    positions = torch.tensor([[0, 1, 2], [70, 71, 500]])
    batched = torch.func.vmap(lambda p: torch_sinusoidal_encoding(p, 8))(positions)
    for row, p in zip(batched, positions):
        torch.testing.assert_close(row, torch_sinusoidal_encoding(p, 8), rtol=0, atol=2.0**-24)
    module, x = layer(), torch.zeros(2, 3, D_MODEL)
    out = torch.func.vmap(lambda x, ids: module(x[None], positions=ids)[0])(x, positions)
    torch.testing.assert_close(out, module(x, positions=positions), rtol=0, atol=2.0**-24)


@pytest.mark.parametrize("strict", [False, True])
def test_two_exports_with_other_settings_in_one_process_need_no_dynamo_reset(strict):
    first = layer()
    second = layer(layout="concatenated", spacing="tensor2tensor", base=500.0, scale=False, max_len=None)
    x = torch.randn(2, 9, D_MODEL)
    programs = [export(module, (x, 3), strict=strict) for module in (first, second)]  # no torch._dynamo.reset()
    for module, program in zip((first, second), programs):
        assert torch.equal(program.module()(x, 3), module(x, positions=3))


def test_an_int_offset_is_baked_into_the_exported_program_unless_declared_dynamic():
    module, x = layer(), torch.randn(2, 9, D_MODEL)
    program = export(module, (x, 5))  # an int input is specialised: the program holds positions == 5
    assert torch.equal(program.module()(x, 5), module(x, positions=5))
    with pytest.raises(AssertionError, match="positions == 5"):
        program.module()(x, 6)
    dynamic = export(module, (x, 5), dynamic_shapes=(None, Dim.AUTO))  # declared dynamic: any offset
    assert torch.equal(dynamic.module()(x, 6 + MAX_LEN), module(x, positions=6 + MAX_LEN))
    held = export(module, (x, torch.tensor(5)))  # a 0-d tensor is an input like any other
    assert torch.equal(held.module()(x, torch.tensor(70)), module(x, positions=70))
