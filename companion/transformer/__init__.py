"""A small Transformer, built from torch, with six position schemes behind one switch.

The companion of the chapter on attention and a trained model. Needs the ``[torch]`` extra.
Import the modules themselves; this package imports nothing on its own."""
