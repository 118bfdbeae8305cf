"""The layer's second audit (issue 27): one test, or a few, per finding, each failing on the layer before the fix.

1. a table swapped in without values (Hugging Face's from_pretrained) is filled before use;
2. a static then a dynamic non-strict export in one process give a program for every shape;
3. ids built in compiled code from an int length compile (torch.cond's branches agree);
4. tensor offsets and position ids on an accelerator are never read on the host;
5. a wrong or absent device is named as such;
6. negative positions are refused unless allowed, and torch.jit.trace is refused clearly;
7. Inductor with reduced-precision x: within one rounding of eager mode, as documented;
8. positions from input_ids with a padding_idx, and the table's rows alone, equal to Hugging Face's.
"""

import math
import os
import warnings

import pytest
import torch
from torch._dynamo.testing import CompileCounter
from torch.export import Dim, export
from torch.utils._python_dispatch import TorchDispatchMode

from companion import SinusoidalPositionalEncoding, position_ids_from_input_ids, torch_sinusoidal_encoding

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is downloaded: every model is built from a config

D_MODEL, MAX_LEN = 16, 64


# ---- 1. never computing on an unfilled table


def tiny_pretrained_model(init_calls_reset: bool):
    """A Hugging Face PreTrainedModel holding the layer; its _init_weights calls reset_parameters or not."""
    from transformers import PretrainedConfig, PreTrainedModel

    class Config(PretrainedConfig):
        model_type = "companion-second-audit"

        def __init__(self, max_len=None, **kwargs):
            self.max_len = max_len
            super().__init__(**kwargs)

    class Tiny(PreTrainedModel):
        config_class = Config

        def __init__(self, config):
            super().__init__(config)
            self.embedding = torch.nn.Embedding(10, 8)
            self.positions = SinusoidalPositionalEncoding(8, config.max_len)
            self.post_init()

        def _init_weights(self, module):
            if isinstance(module, torch.nn.Embedding):
                module.weight.data.normal_()
            elif init_calls_reset and isinstance(module, SinusoidalPositionalEncoding):
                module.reset_parameters()

        def forward(self, tokens, positions=None):
            return self.positions(self.embedding(tokens), positions=positions)

    return Tiny, Config


@pytest.mark.parametrize("max_len", [None, 64])
def test_from_pretrained_fills_the_table_even_if_init_weights_forgets_it(tmp_path, max_len):
    Tiny, Config = tiny_pretrained_model(init_calls_reset=False)
    torch.manual_seed(0)
    model = Tiny(Config(max_len=max_len)).eval()
    model.save_pretrained(tmp_path)
    loaded = Tiny.from_pretrained(tmp_path).eval()
    tokens = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    assert torch.equal(loaded.positions.angular_frequencies, model.positions.angular_frequencies)
    assert torch.equal(loaded(tokens), model(tokens))
    assert torch.equal(loaded(tokens, positions=100), model(tokens, positions=100))  # computed rows: the frequencies


def test_a_buffer_swapped_for_an_empty_one_is_filled_before_use():
    layer = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN)
    expected = layer(torch.zeros(1, 5, D_MODEL), positions=3)
    layer._buffers["pe"] = torch.full_like(layer.pe, float("nan"))  # what a loader's torch.empty may hold
    layer._buffers["angular_frequencies"] = torch.full_like(layer.angular_frequencies, 1e30)
    assert torch.equal(layer(torch.zeros(1, 5, D_MODEL), positions=3), expected)
    layer.to_empty(device="cpu")  # new tensors without values on the same device: filled at once
    assert not layer.pe.isnan().any() and torch.equal(layer.pe[3:8], expected[0])


def test_a_table_is_filled_in_inference_mode_and_a_layer_built_in_it_works():
    with torch.inference_mode():
        built = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN)  # its tensors are inference tensors
        assert torch.equal(built(torch.zeros(1, 3, D_MODEL), positions=2)[0], built.pe[2:5])
    layer = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN)
    expected = layer.pe.clone()
    layer._buffers["pe"] = torch.empty_like(layer.pe)
    with torch.inference_mode():  # filled in place on the first call, in inference mode
        layer(torch.zeros(1, 3, D_MODEL))
    assert torch.equal(layer.pe, expected) and torch.equal(built.pe, expected)


@pytest.mark.parametrize("max_len", [MAX_LEN, None])
def test_a_layer_left_on_the_meta_device_builds_its_table_where_it_is_called(max_len):
    # a model built on the meta device, its weights loaded with assign=True: the layer's buffers, in no
    # state dict, are still on the meta device when the model is first called
    with torch.device("meta"):
        model = torch.nn.Sequential(torch.nn.Linear(D_MODEL, D_MODEL), SinusoidalPositionalEncoding(D_MODEL, max_len))
    saved = torch.nn.Sequential(torch.nn.Linear(D_MODEL, D_MODEL), SinusoidalPositionalEncoding(D_MODEL, max_len))
    model.load_state_dict(saved.state_dict(), assign=True)
    x = torch.randn(2, 5, D_MODEL)
    layer = model[1]
    assert torch.equal(layer(x, positions=3), SinusoidalPositionalEncoding(D_MODEL, MAX_LEN)(x, positions=3))
    assert layer.pe.device.type == "cpu" and layer.angular_frequencies.device.type == "cpu"


# ---- 2. a static, then a dynamic non-strict export in one process


def test_a_dynamic_export_after_a_static_one_accepts_seq_len_equal_to_batch():
    export(SinusoidalPositionalEncoding(D_MODEL, MAX_LEN), (torch.randn(2, 9, D_MODEL),), strict=False)
    layer = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN, batch_first=False)
    program = export(layer, (torch.randn(9, 2, D_MODEL),), dynamic_shapes=({0: Dim.AUTO, 1: Dim.AUTO},),
                     strict=False)  # no torch._dynamo.reset() between the two
    for seq_len, batch in ((1, 1), (3, 3), (5, 2), (MAX_LEN + 3, 4)):
        x = torch.randn(seq_len, batch, D_MODEL)
        assert torch.equal(program.module()(x), layer(x)), (seq_len, batch)


# ---- 3. ids built in compiled code from an int length


class SlicedModel(torch.nn.Module):
    """Ids built inside the compiled code from an int length, as a model that trims its inputs does."""

    def __init__(self):
        super().__init__()
        self.positions = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN)

    def forward(self, x, length: int):
        ids = torch.arange(length).unsqueeze(0).expand(x.shape[0], -1)
        return self.positions(x[:, :length], positions=ids)


def test_ids_built_from_an_int_length_equal_to_the_batch_compile_in_one_graph():
    model = SlicedModel().eval()
    counter = CompileCounter()
    torch._dynamo.reset()
    function = torch.compile(model, fullgraph=True, dynamic=True, backend=counter)
    for batch, length in ((3, 3), (2, 5), (4, 4), (2, MAX_LEN + 6)):  # equal to the batch, and past max_len
        x = torch.randn(batch, length + 1, D_MODEL)
        assert torch.equal(function(x, length), model(x, length)), (batch, length)
    assert counter.frame_count <= 2  # the first call's sizes are alike (3, 3): one recompile at most


# ---- 4. no host read for tensor offsets and ids on an accelerator


class NoHostReads(TorchDispatchMode):
    """Fails on any operation that copies a tensor's value to the host (.item(), bool(), torch.equal)."""

    READS = {torch.ops.aten._local_scalar_dense.default, torch.ops.aten.is_nonzero.default,
             torch.ops.aten.equal.default}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func in self.READS:
            raise AssertionError(f"a host read on the forward path: {func}")
        return func(*args, **(kwargs or {}))


@pytest.fixture
def accelerator_like(monkeypatch):
    """The layer treats every tensor as living on an accelerator: never read on the host (this machine has no GPU;
    `benchmarks/layer_speed.py --device cuda` checks the real thing with torch.cuda.set_sync_debug_mode)."""
    monkeypatch.setattr(torch.Tensor, "is_cpu", property(lambda tensor: False))


@pytest.mark.parametrize("max_len", [MAX_LEN, None])
def test_tensor_offsets_and_ids_on_an_accelerator_are_never_read(accelerator_like, max_len):
    layer = SinusoidalPositionalEncoding(D_MODEL, max_len).eval()
    reference = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN).eval()
    torch.manual_seed(0)
    x = torch.randn(2, 3, D_MODEL)
    ids = torch.tensor([[0, 1, 2], [62, 63, 64]])  # the second row runs past the cache
    calls = {"0-d offset": (torch.tensor(5), 5), "0-d offset past max_len": (torch.tensor(MAX_LEN), MAX_LEN),
             "ids": (ids, ids), "ids of uint8": (ids.to(torch.uint8), ids), "ids (seq_len,)": (ids[1], ids[1])}
    for name, (positions, expected_positions) in calls.items():
        with NoHostReads():
            out = layer(x, positions=positions)
            rows = layer.rows(positions, padding_idx=1)
        assert torch.equal(out, reference(x, positions=expected_positions)), name
        if positions.dim() > 0:
            assert torch.equal(rows, reference.rows(expected_positions, padding_idx=1)), name
    with NoHostReads(), pytest.raises(RuntimeError, match="position ids must be non-negative"):
        layer(x, positions=ids - 1)  # checked by the device (torch._assert_async), not by a read


# ---- 5. the device named in its own error


@pytest.mark.parametrize("device, message", [
    ("gpu", r"device must be a torch.device or a device name .* got 'gpu'"),
    ("cdua", r"got 'cdua'"),
    ("cuda", r"device='cuda' is not available on this machine"),
    ("cuda:3", r"device='cuda:3' is not available on this machine"),
])
def test_a_wrong_or_absent_device_is_named(device, message):
    if device.startswith("cuda") and torch.cuda.device_count() > 3:
        pytest.fail("this test expects a machine with fewer than 4 GPUs")
    if device == "cuda" and torch.cuda.is_available():
        message = "(unused)"
        SinusoidalPositionalEncoding(8, 16, device=device)
        return
    with pytest.raises(ValueError, match=message):
        SinusoidalPositionalEncoding(8, 16, device=device)
    with pytest.raises(ValueError, match=message):
        torch_sinusoidal_encoding(torch.arange(4), 8, device=device)


# ---- 6. negative positions, and torch.jit.trace


@pytest.mark.parametrize("positions", [torch.tensor([[-1, 0, 1]]), torch.tensor(-1), -1],
                         ids=["ids", "0-d offset", "int offset"])
def test_negative_positions_are_refused_unless_allowed(positions):
    x = torch.randn(1, 3, D_MODEL)
    with pytest.raises(ValueError, match="positions must be non-negative.* allow_negative_positions=True"):
        SinusoidalPositionalEncoding(D_MODEL, MAX_LEN)(x, positions=positions)
    allowed = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN, allow_negative_positions=True)
    expected = x * math.sqrt(D_MODEL) + torch_sinusoidal_encoding(torch.tensor([-1, 0, 1]), D_MODEL)
    torch.testing.assert_close(allowed(x, positions=positions), expected, rtol=0, atol=2.0**-20)


def test_negative_ids_are_refused_under_compile_too():
    layer = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN)
    torch._dynamo.reset()
    function = torch.compile(layer, fullgraph=True, dynamic=True, backend="eager")
    x = torch.randn(2, 3, D_MODEL)
    assert torch.equal(function(x, positions=torch.tensor([[0, 1, 2], [3, 4, 5]])),
                       layer(x, positions=torch.tensor([[0, 1, 2], [3, 4, 5]])))
    with pytest.raises(RuntimeError, match="position ids must be non-negative"):
        function(x, positions=torch.tensor([[0, 1, 2], [-1, 4, 5]]))


def test_torch_jit_trace_is_refused_with_a_clear_message():
    with warnings.catch_warnings():  # torch 2.13 deprecates torch.jit.trace itself
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="does not support torch.jit.trace .* torch.compile or torch.export"):
            torch.jit.trace(SinusoidalPositionalEncoding(8, 16), (torch.randn(2, 5, 8),))


# ---- 7. Inductor with reduced-precision x and a float32 cache


# Inductor's own modules call torch.jit.script_method, which torch itself deprecates
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
def test_inductor_with_nonzero_bfloat16_x_is_within_one_rounding_of_eager():
    # Inductor computes x * sqrt(d) + row in float32 and rounds once; eager rounds after the product and the sum
    layer = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN)  # a float32 cache; rows computed in bfloat16
    torch._dynamo.reset()
    function = torch.compile(layer, fullgraph=True, dynamic=True)
    torch.manual_seed(0)
    x = torch.randn(3, 40, D_MODEL).bfloat16()
    compiled, eager = function(x, positions=5).float(), layer(x, positions=5).float()
    # eager rounds the product and the sum to bfloat16, Inductor the sum alone: a bfloat16 ulp of either apart
    ulps = (x.float().abs() * math.sqrt(D_MODEL) + eager.abs()) * 2.0**-7
    assert ((compiled - eager).abs() <= ulps).all()
    assert not torch.equal(compiled, eager)  # the reason the page says "within one rounding", not "equal"


# ---- 8. positions from input_ids, and the table's rows alone, as Hugging Face's modules offer


def batches_with_pads(pad):
    generator = torch.Generator().manual_seed(0)
    tokens = torch.randint(3, 40, (4, 50), generator=generator)
    tokens[1, :7] = pad  # left padding
    tokens[2, -5:] = pad  # right padding
    tokens[3, ::3] = pad  # pads anywhere
    return tokens


@pytest.mark.parametrize("pad, past", [(1, 0), (1, 7), (0, 3)])
def test_position_ids_from_input_ids_equal_m2m100s_and_fairseqs(pad, past):
    from transformers.models.fsmt.modeling_fsmt import SinusoidalPositionalEmbedding
    from transformers.models.m2m_100.modeling_m2m_100 import M2M100SinusoidalPositionalEmbedding

    tokens = batches_with_pads(pad)
    ours = position_ids_from_input_ids(tokens, pad, past_key_values_length=past)
    assert ours.dtype == torch.int64
    assert torch.equal(ours, M2M100SinusoidalPositionalEmbedding.create_position_ids_from_input_ids(tokens, pad, past))
    if past == 0:
        assert torch.equal(ours, SinusoidalPositionalEmbedding.make_positions(tokens, pad))
    assert torch.equal(position_ids_from_input_ids(tokens, pad, torch.tensor(past)), ours)  # a 0-d tensor length


@pytest.mark.parametrize("past", [0, 90])
def test_rows_with_a_padding_idx_equal_m2m100s_positional_embedding(past):
    from transformers.models.m2m_100.modeling_m2m_100 import M2M100SinusoidalPositionalEmbedding

    pad = 1
    module = M2M100SinusoidalPositionalEmbedding(64, D_MODEL, pad)
    layer = SinusoidalPositionalEncoding(D_MODEL, layout="concatenated", spacing="tensor2tensor")
    tokens = batches_with_pads(pad)
    theirs = module(tokens, past_key_values_length=past)  # grows its table past 64, as ours is computed
    ours = layer.rows(position_ids_from_input_ids(tokens, pad, past), padding_idx=pad)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert (ours - theirs).abs().max() < 5e-5  # their float32 angles (position * 2**-24), as the API page says
    assert torch.equal(ours[tokens == pad], torch.zeros_like(ours[tokens == pad]))


def test_rows_equal_the_forward_without_scaling_and_check_their_arguments():
    layer = SinusoidalPositionalEncoding(D_MODEL, MAX_LEN)
    ids = torch.tensor([[3, 4, 200], [0, 1, 2]])
    assert torch.equal(layer.rows(ids), layer(torch.zeros(2, 3, D_MODEL), positions=ids))
    assert layer.rows(ids, dtype=torch.float64).dtype == torch.float64
    assert layer.rows(ids[0]).shape == (3, D_MODEL) and layer.rows(ids[None]).shape == (1, 2, 3, D_MODEL)
    with pytest.raises(TypeError, match="padding_idx must be an int"):
        layer.rows(ids, padding_idx=1.0)
    with pytest.raises(TypeError, match="integer tensor of position ids"):
        layer.rows(ids.float())
    with pytest.raises(ValueError, match="non-negative"):
        layer.rows(ids - 1)


@pytest.mark.parametrize("call, error, message", [
    (lambda: position_ids_from_input_ids(torch.zeros(2, 3), 1), TypeError, "input_ids must be an integer tensor"),
    (lambda: position_ids_from_input_ids(torch.zeros(3, dtype=torch.long), 1), ValueError, r"shape \(batch, seq_len\)"),
    (lambda: position_ids_from_input_ids(torch.zeros(2, 3, dtype=torch.long), -1), ValueError, "padding_idx"),
    (lambda: position_ids_from_input_ids(torch.zeros(2, 3, dtype=torch.long), 1, -2), ValueError,
     "past_key_values_length"),
    (lambda: position_ids_from_input_ids(torch.zeros(2, 3, dtype=torch.long), 1, 2.0), TypeError,
     "past_key_values_length"),
])
def test_position_ids_from_input_ids_refuse_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
