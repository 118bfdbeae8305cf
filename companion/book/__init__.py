"""What only the book needs: the source documents' printed figures, third-party recipes to compare
with, plotting helpers and the speed benchmark. Import the modules themselves; this package imports
nothing on its own."""
