"""What the proofs and the precision chapters compute: similarity, the shift rotation, a sympy form of
the encoding, a 40-digit reference, the error of each way of building the table, and how far apart
positions stay. Import the modules themselves; this package imports nothing on its own."""
