"""An io_uring client in ctypes: a UNIX socket made and connected without socket(2).

``python io_uring_client.py PATH`` sets up a ring, submits IORING_OP_SOCKET (AF_UNIX,
SOCK_STREAM) and then IORING_OP_CONNECT to the socket file PATH, and says on stdout what
happened: ``connected``, or the step the kernel refused and its errno. The exit code
tells the test which: 0 connected, 3 ``io_uring_setup`` refused, 4 an operation this
kernel lacks (before 5.19), 5 the socket or the connect refused.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import socket
import struct
import sys

SETUP, ENTER = 425, 426
OP_CONNECT, OP_SOCKET = 16, 45
ENTER_GETEVENTS = 1
OFF_SQ_RING, OFF_CQ_RING, OFF_SQES = 0, 0x8000000, 0x10000000
SQE_SIZE, CQE_SIZE = 64, 16

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


class Params(ctypes.Structure):
    # struct io_uring_params: ten u32, then the SQ and CQ ring offsets (40 bytes each).
    _fields_ = [
        ("sq_entries", ctypes.c_uint32),
        ("cq_entries", ctypes.c_uint32),
        ("rest", ctypes.c_uint32 * 8),
        ("sq_off", ctypes.c_uint32 * 10),
        ("cq_off", ctypes.c_uint32 * 10),
    ]


class Ring:
    def __init__(self) -> None:
        self.params = Params()
        fd = libc.syscall(SETUP, 4, ctypes.byref(self.params))
        if fd < 0:
            raise OSError(ctypes.get_errno(), "io_uring_setup")
        self.fd = fd
        sq, cq = self.params.sq_off, self.params.cq_off
        # sq_off: head, tail, ring_mask, ring_entries, flags, dropped, array.
        self.sq = self._map(OFF_SQ_RING, sq[6] + 4 * self.params.sq_entries)
        # cq_off: head, tail, ring_mask, ring_entries, overflow, cqes.
        self.cq = self._map(OFF_CQ_RING, cq[5] + CQE_SIZE * self.params.cq_entries)
        self.sqes = self._map(OFF_SQES, SQE_SIZE * self.params.sq_entries)

    def _map(self, offset: int, length: int) -> mmap.mmap:
        return mmap.mmap(
            self.fd, length, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, 0, offset
        )

    def _word(self, area: mmap.mmap, offset: int) -> int:
        return int(struct.unpack_from("=I", area, offset)[0])

    def run(self, opcode: int, fd: int, addr: int, length: int, off: int) -> int:
        """Submit one operation and wait for its result (a value, or minus an errno)."""
        sq, cq = self.params.sq_off, self.params.cq_off
        struct.pack_into("=BBHiQQII", self.sqes, 0, opcode, 0, 0, fd, off, addr, length, 0)
        tail = self._word(self.sq, sq[1])
        struct.pack_into("=I", self.sq, sq[6] + 4 * (tail & self._word(self.sq, sq[2])), 0)
        struct.pack_into("=I", self.sq, sq[1], tail + 1)
        if libc.syscall(ENTER, self.fd, 1, 1, ENTER_GETEVENTS, None, 0) < 0:
            raise OSError(ctypes.get_errno(), "io_uring_enter")
        head = self._word(self.cq, cq[0])
        slot = cq[5] + CQE_SIZE * (head & self._word(self.cq, cq[2]))
        result = int(struct.unpack_from("=i", self.cq, slot + 8)[0])
        struct.pack_into("=I", self.cq, cq[0], head + 1)
        return result


def main(path: str) -> int:
    try:
        ring = Ring()
    except OSError as error:
        print(f"io_uring_setup refused: {os.strerror(error.errno or 0)}")
        return 3
    made = ring.run(OP_SOCKET, socket.AF_UNIX, 0, 0, socket.SOCK_STREAM)
    if made < 0:
        print(f"IORING_OP_SOCKET refused: {os.strerror(-made)}")
        return 4 if -made == 22 else 5  # EINVAL: an opcode this kernel does not know
    address = ctypes.create_string_buffer(struct.pack("=H", socket.AF_UNIX) + path.encode())
    done = ring.run(OP_CONNECT, made, ctypes.addressof(address), 0, len(address.raw))
    if done < 0:
        print(f"IORING_OP_CONNECT refused: {os.strerror(-done)}")
        return 5
    print("connected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
