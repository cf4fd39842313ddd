#!/usr/bin/env python3
"""Runs a command in a real pseudo-terminal, as a person at a terminal would, and reports what
happened as one JSON object: {"exit": status or null, "hung": bool, "transcript": text}.

The command is the session leader with the pty as its controlling terminal, so it and anything
it spawns in its own process group are in the terminal's foreground, exactly as under a shell.

  pty-session.py [--rows N] [--cols N] [--timeout S] [--expect TEXT --send KEYS]... -- CMD ARGS...

Each --expect/--send pair waits until TEXT has appeared in the output, then types KEYS
(Python escapes: "q", "\\x03" for Ctrl-C). When the command has not exited --timeout seconds
after the last key, it is reported hung and its session is killed.
"""
import fcntl, json, os, pty, select, signal, struct, sys, termios, time

def main(argv):
    rows, cols, timeout, steps = 24, 80, 15.0, []
    i = 0
    while i < len(argv) and argv[i] != "--":
        a = argv[i]
        if a == "--rows": rows = int(argv[i + 1]); i += 2
        elif a == "--cols": cols = int(argv[i + 1]); i += 2
        elif a == "--timeout": timeout = float(argv[i + 1]); i += 2
        elif a == "--expect": steps.append([argv[i + 1], None]); i += 2
        elif a == "--send": steps[-1][1] = argv[i + 1].encode().decode("unicode_escape"); i += 2
        else: sys.exit(f"pty-session.py: unknown option {a}")
    cmd = argv[i + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in ("LINES", "COLUMNS")}
        env.setdefault("TERM", "xterm")
        os.execvpe(cmd[0], cmd, env)
    out = b""
    status = None
    deadline = time.time() + timeout
    def pump(wait):
        """Reads what the terminal shows; False when nothing came within `wait` or it closed."""
        nonlocal out
        r, _, _ = select.select([fd], [], [], wait)
        if not r:
            return False
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        out += data
        return bool(data)
    for text, keys in steps:
        while text.encode() not in out and time.time() < deadline:
            pump(0.05)
        time.sleep(0.2)
        if keys is not None:
            os.write(fd, keys.encode())
        deadline = time.time() + timeout
    while time.time() < deadline:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(st)
            break
        pump(0.05)
    while pump(0.05):
        pass
    hung = status is None
    if hung:
        # Everything in the terminal's session, a pager stopped in a group of its own too.
        for p in os.listdir("/proc"):
            try:
                if p.isdigit() and os.getsid(int(p)) == pid:
                    os.kill(int(p), signal.SIGKILL)
            except OSError:
                pass
        os.waitpid(pid, 0)
    print(json.dumps({"exit": status, "hung": hung, "transcript": out.decode("utf-8", "replace")}))

if __name__ == "__main__":
    main(sys.argv[1:])
