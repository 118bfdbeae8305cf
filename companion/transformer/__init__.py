"""A small Transformer, built from torch, with five position schemes behind one switch (chapter 7).
Needs the ``[torch]`` extra. Import the modules themselves; this package imports nothing on its own."""
