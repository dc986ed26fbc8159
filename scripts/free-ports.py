"""Prints N distinct free TCP ports on 127.0.0.1 (held open together while chosen, so none repeats)."""
import socket
import sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 1
sockets = []
for _ in range(count):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    sockets.append(s)
print(" ".join(str(s.getsockname()[1]) for s in sockets))
for s in sockets:
    s.close()
