"""Checkpoints record the table's settings, not the table: a mismatch fails, an old checkpoint loads with a warning."""

import io

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
    assert saved_and_loaded(state)["positions._extra_state"] == {
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
