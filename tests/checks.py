"""The Python tests' one assertion: check(ok, what) prints "ok" or "FAIL" and the check, and
keeps the failed ones in `failures` for the test's exit status."""

failures = []


def check(ok: bool, what: str) -> None:
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
