#!/usr/bin/env python3
"""deep_tree.py DIR DEPTH [PID]: makes DIR/d/d/.../d, DEPTH levels, with plain mkdir (as whoever runs it), and
moves PID (if given) into the deepest one. Paths that deep are longer than PATH_MAX, so it goes down by chdir,
as an owner of a delegated cgroup can. Prints the number of levels made."""
import os
import sys

top, depth = sys.argv[1], int(sys.argv[2])
os.chdir(top)
made = 0
for _ in range(depth):
    try:
        os.mkdir("d")
    except FileExistsError:
        pass
    os.chdir("d")
    made += 1
if len(sys.argv) > 3:
    with open("cgroup.procs", "w") as f:
        f.write(sys.argv[3])
print(made)
