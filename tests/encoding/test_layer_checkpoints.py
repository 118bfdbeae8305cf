"""Checkpoints record the table's settings, not the table: a mismatch fails, an old checkpoint loads with a warning."""

import io
import json

import pytest
import torch

from companion import SinusoidalPositionalEncoding
from companion.encoding.layer import TableMismatchError


class Model(torch.nn.Module):
    def __init__(self, **options):
        super().__init__()
        self.embedding = torch.nn.Embedding(10, 8)
        self.positions = SinusoidalPositionalEncoding(8, 16, **options)


def saved_and_loaded(state_dict):
    buffer = io.BytesIO()
    torch.save(state_dict, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)  # the settings are plain str, float, int and bool


def test_the_checkpoint_holds_the_settings_and_not_the_table():
    state = Model(layout="concatenated", spacing="tensor2tensor").state_dict()
    assert set(state) == {"embedding.weight", "positions._extra_state"}
    record = saved_and_loaded(state)["positions._extra_state"]
    assert record.dtype == torch.uint8 and record.dim() == 1  # a tensor, which safetensors can store
    assert json.loads(bytes(record.tolist())) == {
        "d_model": 8, "base": 10_000.0, "layout": "concatenated", "spacing": "tensor2tensor", "scale": True}


def test_the_same_settings_load_strictly_into_another_max_len():
    state = saved_and_loaded(Model().state_dict())
    model = Model()
    model.positions = SinusoidalPositionalEncoding(8, 1024)
    assert not model.load_state_dict(state).missing_keys


@pytest.mark.parametrize("options, named", [
    ({"layout": "concatenated"}, "layout='concatenated'"),
    ({"spacing": "tensor2tensor"}, "spacing='tensor2tensor'"),
    ({"base": 500.0}, "base=500.0"),
    ({"scale": False}, "scale=False"),
])
def test_a_checkpoint_of_another_table_fails_to_load_naming_both(options, named):
    state = saved_and_loaded(Model(**options).state_dict())
    with pytest.raises(TableMismatchError, match="another table") as caught:
        Model().load_state_dict(state)
    message = str(caught.value)
    checkpoint, _, this = message.partition("; this layer")
    assert named in checkpoint and "layout='interleaved', spacing='paper'" in this


def test_an_old_checkpoint_without_the_record_loads_with_a_warning():
    state = Model().state_dict()
    del state["positions._extra_state"]  # what the companion saved before it recorded the table
    model = Model()
    with pytest.warns(UserWarning, match="no record of the positional table .*'positions._extra_state'"):
        result = model.load_state_dict(state)  # strict, as by default
    assert not result.missing_keys and not result.unexpected_keys


def test_a_record_that_is_not_the_companions_is_refused():
    with pytest.raises(TableMismatchError, match="checkpoint 'a tensor'"):
        SinusoidalPositionalEncoding(8, 4).load_state_dict({"_extra_state": "a tensor"})


def test_a_model_holding_the_layer_round_trips_through_safetensors(tmp_path):
    from safetensors.torch import load_file, save_file

    torch.manual_seed(0)
    model = Model(layout="concatenated")
    save_file(model.state_dict(), tmp_path / "model.safetensors")  # safetensors stores tensors only
    state = load_file(tmp_path / "model.safetensors")
    loaded = Model(layout="concatenated")
    result = loaded.load_state_dict(state)  # strict
    assert not result.missing_keys and not result.unexpected_keys
    assert torch.equal(loaded.embedding.weight, model.embedding.weight)
    with pytest.raises(TableMismatchError, match="checkpoint .*layout='concatenated'.*; this layer .*'interleaved'"):
        Model().load_state_dict(state)


def test_a_hugging_face_model_holding_the_layer_round_trips_through_save_pretrained(tmp_path):
    from transformers import PretrainedConfig, PreTrainedModel

    class Config(PretrainedConfig):
        model_type = "companion-layer-test"

        def __init__(self, layout="interleaved", max_len=None, **kwargs):
            self.layout, self.max_len = layout, max_len
            super().__init__(**kwargs)

    class Tiny(PreTrainedModel):
        config_class = Config

        def __init__(self, config):
            super().__init__(config)
            self.embedding = torch.nn.Embedding(10, 8)
            self.positions = SinusoidalPositionalEncoding(8, config.max_len, layout=config.layout)
            self.post_init()

        def _init_weights(self, module):
            # from_pretrained allocates non-persistent buffers empty and leaves their values to this method
            if isinstance(module, SinusoidalPositionalEncoding):
                module.reset_parameters()

        def forward(self, tokens):
            return self.positions(self.embedding(tokens))

    tokens = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    for max_len in (None, 16):
        torch.manual_seed(0)
        model = Tiny(Config(max_len=max_len)).eval()
        model.save_pretrained(tmp_path / str(max_len))  # safetensors, the default
        loaded = Tiny.from_pretrained(tmp_path / str(max_len)).eval()
        assert torch.equal(loaded(tokens), model(tokens)), max_len
        with pytest.raises(TableMismatchError, match="checkpoint .*'interleaved'.*; this layer .*'concatenated'"):
            Tiny.from_pretrained(tmp_path / str(max_len), layout="concatenated")


def test_a_dict_record_saved_by_earlier_builds_still_loads_and_is_checked():
    record = {"d_model": 8, "base": 10_000.0, "layout": "interleaved", "spacing": "paper", "scale": True}
    state = {"embedding.weight": torch.zeros(10, 8), "positions._extra_state": record}
    assert not Model().load_state_dict(saved_and_loaded(state)).missing_keys
    with pytest.raises(TableMismatchError, match="checkpoint d_model=8, base=10000.0, layout='interleaved'"):
        Model(layout="concatenated").load_state_dict(state)


def test_a_tensor_that_is_not_a_record_is_refused():
    not_a_record = r"checkpoint a torch.float32 tensor of shape \(3,\) that is not a record"
    with pytest.raises(TableMismatchError, match=not_a_record):
        SinusoidalPositionalEncoding(8, 4).load_state_dict({"_extra_state": torch.zeros(3)})
    with pytest.raises(TableMismatchError, match="torch.uint8 tensor of shape"):  # bytes, but not JSON
        SinusoidalPositionalEncoding(8, 4).load_state_dict({"_extra_state": torch.tensor([255, 0], dtype=torch.uint8)})


def test_a_missing_record_warns_whether_or_not_the_load_is_strict():
    # torch calls each module's _load_from_state_dict with strict=True whatever the caller passed, so the
    # layer cannot tell the two apart: it warns in both, and never fails a strict load of a 0.1.0 checkpoint
    state = Model().state_dict()
    del state["positions._extra_state"]
    for strict in (True, False):
        with pytest.warns(UserWarning, match="no record of the positional table .* or a partial state dict"):
            result = Model().load_state_dict(state, strict=strict)
        assert not result.missing_keys and not result.unexpected_keys
