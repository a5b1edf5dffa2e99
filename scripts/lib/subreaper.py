#!/usr/bin/env python3
"""Run a command so that it leaves nothing behind: Chromium's zygote and
crashpad helpers outlive the browser process and get re-parented.

This process becomes their child subreaper (PR_SET_CHILD_SUBREAPER), so the
orphans come back here and are reaped here, not left <defunct> for PID 1.
The command runs in a new session (its own process group). SIGTERM/SIGINT
are forwarded to that group; once the command exits, the group gets SIGTERM
and whatever is still alive 5 s later SIGKILL. Exit status: the command's
(128 + N when a signal N ended it).

Usage: subreaper.py CMD [ARGS...]
"""
import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("subreaper.py: prctl(PR_SET_CHILD_SUBREAPER) failed")
child = subprocess.Popen(sys.argv[1:], start_new_session=True)


def signal_group(sig):
    try:
        os.killpg(child.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def my_children():
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                if int(stat.read().rsplit(")", 1)[1].split()[1]) == me:
                    found.append(int(entry))
        except (OSError, IndexError, ValueError):
            pass
    return found


signal.signal(signal.SIGTERM, lambda sig, frame: signal_group(sig))
signal.signal(signal.SIGINT, lambda sig, frame: signal_group(sig))
status, deadline = 0, None
while True:
    try:
        pid, wait_status = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break  # nothing left to reap
    if pid == 0:
        if deadline is not None and time.time() > deadline:
            for orphan in my_children():
                try:
                    os.kill(orphan, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        time.sleep(0.05)
        continue
    if pid == child.pid:
        status = os.waitstatus_to_exitcode(wait_status)
        signal_group(signal.SIGTERM)
        deadline = time.time() + 5
sys.exit(status if status >= 0 else 128 - status)
