"""The cache of max_len=None under threads and DistributedDataParallel: grown safely, and no buffer DDP sees."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import torch

from companion import SinusoidalPositionalEncoding, torch_sinusoidal_encoding

ROOT = Path(__file__).parent.parent.parent


def test_the_grown_cache_is_no_buffer_but_still_the_layers_table():
    layer = SinusoidalPositionalEncoding(8, scale=False)
    layer(torch.zeros(1, 40, 8))
    assert "pe" not in dict(layer.named_buffers()) and layer.pe.shape == (40, 8)
    assert torch.equal(layer.pe, torch_sinusoidal_encoding(torch.arange(40), 8))
    assert "pe" in dict(SinusoidalPositionalEncoding(8, 16).named_buffers())  # a fixed max_len: a buffer, as before
    layer.double()  # moved with the module, rebuilt in float64 (not cast)
    assert torch.equal(layer.pe, torch_sinusoidal_encoding(torch.arange(40), 8, dtype=torch.float64))
    layer.to_empty(device="meta")
    assert layer.pe.is_meta and layer.pe.shape == (40, 8)
    layer.to_empty(device="cpu")
    assert torch.equal(layer.pe, torch_sinusoidal_encoding(torch.arange(40), 8, dtype=torch.float64))


def test_a_cache_grown_in_inference_mode_can_be_rebuilt_outside_it():
    layer = SinusoidalPositionalEncoding(8)
    with torch.inference_mode():
        layer(torch.zeros(1, 10, 8))
    assert not layer.pe.is_inference()
    layer.reset_parameters()  # an in-place copy into an inference tensor would raise here
    assert torch.equal(layer.pe, torch_sinusoidal_encoding(torch.arange(10), 8))


def test_threads_growing_one_cache_get_the_rows_of_eager_calls():
    lengths = [3, 70, 9, 300, 150, 1, 600, 33, 1000, 257, 64, 513]
    reference = SinusoidalPositionalEncoding(16, 2048).eval()
    torch.manual_seed(0)
    inputs = [torch.randn(2, length, 16) for length in lengths]
    expected = [reference(x) for x in inputs]
    failures = []
    for round_ in range(20):  # a fresh cache each round, every thread asking for another length at once
        layer = SinusoidalPositionalEncoding(16).eval()
        start = threading.Barrier(len(lengths))

        def call(index, layer=layer, start=start):
            start.wait()
            try:
                for _ in range(3):
                    offset = index % 3
                    out = layer(inputs[index], positions=offset)
                    if not torch.equal(out, reference(inputs[index], positions=offset)):
                        failures.append((round_, lengths[index], "wrong rows"))
                ids = torch.arange(lengths[index]).flip(0)
                if not torch.equal(layer(inputs[index], positions=ids), reference(inputs[index], positions=ids)):
                    failures.append((round_, lengths[index], "wrong rows by id"))
                if not torch.equal(layer(inputs[index]), expected[index]):
                    failures.append((round_, lengths[index], "wrong rows"))
            except Exception as error:  # noqa: BLE001  # reported below, with the thread's case
                failures.append((round_, lengths[index], repr(error)))

        threads = [threading.Thread(target=call, args=(index,)) for index in range(len(lengths))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert torch.equal(layer.pe, reference.pe[: layer.pe.shape[0]])
    assert not failures, failures[:5]


DDP_SCRIPT = """
import datetime, os, sys
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

from companion import SinusoidalPositionalEncoding, torch_sinusoidal_encoding

LENGTHS = {0: [5, 1100, 7, 3], 1: [300, 40, 12, 2000]}  # each rank grows its cache past the other's


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)
        self.positions = SinusoidalPositionalEncoding(8, scale=False)

    def forward(self, x):
        return self.positions(self.linear(x))


def run(rank, init_file):
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=60))
    torch.manual_seed(0)
    model = DistributedDataParallel(Model())  # broadcast_buffers=True, the default
    for length in LENGTHS[rank]:
        x = torch.randn(2, length, 8)
        out = model(x)
        expected = model.module.linear(x) + torch_sinusoidal_encoding(torch.arange(length), 8)
        assert torch.equal(out, expected), (rank, length)
        out.square().mean().backward()
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank} ok, cache of {model.module.positions.pe.shape[0]} rows", flush=True)


if __name__ == "__main__":
    mp.spawn(run, args=(sys.argv[1],), nprocs=2)
"""


def test_ranks_of_distributed_data_parallel_grow_their_caches_to_different_lengths(tmp_path):
    script = tmp_path / "ddp.py"
    script.write_text(textwrap.dedent(DDP_SCRIPT))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "GLOO_SOCKET_IFNAME": "lo", "MASTER_ADDR": "localhost", "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, str(script), str(tmp_path / "rendezvous")], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the session holds the spawned ranks too
        stdout, stderr = process.communicate()
        raise AssertionError(f"DDP hung: {stdout}\n{stderr[-3000:]}") from None
    assert process.returncode == 0, stderr[-3000:]
    assert "rank 0 ok, cache of 1100 rows" in stdout and "rank 1 ok, cache of 2000 rows" in stdout
