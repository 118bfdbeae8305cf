"""A stranger's audit of the layer (issue 27, second audit): one test, or a few, per finding, each failing before the fix.

1. an int offset whose positions pass 2**53 is refused under torch.compile and torch.export too, and the
   2**53 bound is the same (inclusive) for offsets and ids, in eager mode and traced;
2. a wrong shape of position ids under torch.compile gets the layer's message, not "Expected cond to be True";
3. position_ids_from_input_ids refuses a negative or overflowing past_key_values_length (int or tensor);
4. every refusal of max_len says "positive".
"""

import pytest
import torch
from torch.export import Dim, export

from companion import SinusoidalPositionalEncoding, position_ids_from_input_ids

D_MODEL, MAX_LEN = 8, 16
LIMIT = 2**53  # float64 holds every integer up to it: the largest position magnitude the layer encodes
OFFSET_MESSAGE = r"positions \(an offset\) must .*2\*\*53"


def float64_layer(allow_negative_positions=False):
    return SinusoidalPositionalEncoding(D_MODEL, MAX_LEN, dtype=torch.float64,
                                        allow_negative_positions=allow_negative_positions).eval()


def compiled(module):
    torch._dynamo.reset()
    return torch.compile(module, backend="eager", fullgraph=True, dynamic=True)


# ---- 1. the 2**53 bound: refused when traced too, and the same on every path


@pytest.mark.parametrize("allow_negative_positions", [False, True])
def test_an_int_offset_beyond_2_53_is_refused_under_compile(allow_negative_positions):
    layer = float64_layer(allow_negative_positions)
    function = compiled(layer)
    x = torch.zeros(1, 2, D_MODEL, dtype=torch.float64)
    assert torch.equal(function(x, 2), layer(x, 2))
    assert torch.equal(function(x, LIMIT - 1), layer(x, LIMIT - 1))  # the last position is 2**53: allowed
    # the graph's assertion (offset + seq_len - 1 = 2**53 + 1), and far beyond (2**60, whose rows were all one row)
    for offset in (LIMIT, 2**60) + ((-(2**60),) if allow_negative_positions else ()):
        with pytest.raises(RuntimeError, match=OFFSET_MESSAGE):
            function(x, offset)


@pytest.mark.parametrize("allow_negative_positions", [False, True])
def test_an_exported_program_with_a_dynamic_int_offset_refuses_positions_beyond_2_53(allow_negative_positions):
    layer = float64_layer(allow_negative_positions)
    x = torch.zeros(2, 3, D_MODEL, dtype=torch.float64)
    program = export(layer, (x, 3), dynamic_shapes=({0: Dim.AUTO, 1: Dim.AUTO}, Dim.AUTO)).module()
    assert torch.equal(program(x, LIMIT - 2), layer(x, LIMIT - 2))
    for offset in (LIMIT - 1, 2**60) + ((-(2**60),) if allow_negative_positions else ()):
        with pytest.raises(RuntimeError, match=OFFSET_MESSAGE):
            program(x, offset)
    if not allow_negative_positions:
        with pytest.raises(RuntimeError, match="must be non-negative .*allow_negative_positions=True"):
            program(x, -1)


def test_checking_a_traced_offset_puts_no_guard_on_a_named_sequence_dimension():
    # a guard such as seq_len <= 2**53 + 1 - offset would narrow Dim("s"), and torch.export refuses that
    x = torch.zeros(2, 3, D_MODEL)
    for arguments in [(x,), (x, 4)]:
        shapes = ({0: Dim("batch"), 1: Dim("s")},) + (None,) * (len(arguments) - 1)
        program = export(SinusoidalPositionalEncoding(D_MODEL, MAX_LEN).eval(), arguments, dynamic_shapes=shapes)
        longer = torch.randn(3, 40, D_MODEL)
        assert torch.equal(program.module()(longer, *arguments[1:]),
                           SinusoidalPositionalEncoding(D_MODEL, MAX_LEN)(longer, *arguments[1:]))


@pytest.mark.parametrize("seq_len", [2, 5, 40, 100])  # below and above the short run that is computed row by row
def test_the_2_53_bound_is_inclusive_for_offsets_as_for_ids(seq_len):
    layer = float64_layer(allow_negative_positions=True)
    x = torch.zeros(1, seq_len, D_MODEL, dtype=torch.float64)
    last = LIMIT - seq_len + 1  # the offset whose last position is 2**53
    by_offset = layer(x, last)
    assert torch.equal(by_offset, layer(x, torch.arange(last, LIMIT + 1)))
    assert not torch.equal(by_offset[0, -1], by_offset[0, -2])  # a row per position (the float64 arange lost one)
    assert torch.equal(layer(x, -LIMIT), layer(x, torch.arange(-LIMIT, -LIMIT + seq_len)))
    for offset in (last + 1, -LIMIT - 1):
        with pytest.raises(ValueError, match=OFFSET_MESSAGE):
            layer(x, offset)
    with pytest.raises(ValueError, match=r"magnitude at most 2\*\*53"):
        layer(x, torch.arange(last + 1, LIMIT + 2))


# ---- 2. the compiled shape check names the argument


def test_a_wrong_shape_of_ids_under_compile_gets_the_layers_message():
    function = compiled(SinusoidalPositionalEncoding(D_MODEL, MAX_LEN).eval())
    x = torch.zeros(2, 3, D_MODEL)
    function(x, torch.tensor([[0, 1, 2], [3, 4, 5]]))
    with pytest.raises(RuntimeError, match=r"positions must have shape \(seq_len,\), \(batch, seq_len\)"):
        function(x, torch.tensor([[0, 1, 2, 3], [3, 4, 5, 6]]))


# ---- 3. past_key_values_length: non-negative, and ids within 2**53


TOKENS = torch.tensor([[1, 1, 5, 6, 7]])  # padding_idx 1: the largest id is 1 + past + 3 <= 1 + past + seq_len


@pytest.mark.parametrize("past", [-1, torch.tensor(-1), 2**63 - 2, LIMIT - 5, torch.tensor(2**62)],
                         ids=["negative int", "negative tensor", "int64 wraps", "just past 2**53", "tensor beyond"])
def test_past_key_values_length_out_of_range_is_refused(past):
    with pytest.raises(ValueError, match="past_key_values_length must be non-negative, and padding_idx \\+ "
                                         "past_key_values_length \\+ seq_len .* at most 2\\*\\*53"):
        position_ids_from_input_ids(TOKENS, 1, past)


def test_past_key_values_length_up_to_the_bound_is_accepted_and_ids_stay_exact():
    ids = position_ids_from_input_ids(TOKENS, 1, LIMIT - 6)  # padding_idx + past + seq_len = 2**53
    assert ids.tolist() == [[1, 1, LIMIT - 4, LIMIT - 3, LIMIT - 2]]
    assert torch.equal(position_ids_from_input_ids(TOKENS, 1, torch.tensor(LIMIT - 6)), ids)


def test_past_key_values_length_is_checked_under_compile_too():
    @torch.compile(backend="eager", fullgraph=True, dynamic=True)
    def numbered(input_ids, past):
        return position_ids_from_input_ids(input_ids, 1, past)

    torch._dynamo.reset()
    assert torch.equal(numbered(TOKENS, 3), position_ids_from_input_ids(TOKENS, 1, 3))
    for past in (-2, torch.tensor(-2)):
        with pytest.raises(RuntimeError, match="past_key_values_length must be non-negative"):
            numbered(TOKENS, past)


# ---- 4. max_len: one word for what is allowed


@pytest.mark.parametrize("max_len, error", [(0, ValueError), (-1, ValueError), (4.0, TypeError), (True, TypeError)])
def test_every_refused_max_len_is_told_it_must_be_a_positive_integer(max_len, error):
    with pytest.raises(error, match=r"max_len must be a positive integer \(or None for a cache that grows\), got"):
        SinusoidalPositionalEncoding(D_MODEL, max_len)
