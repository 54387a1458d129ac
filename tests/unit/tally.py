"""The unit checkers' count (check.sh's fold reads its closing line):
an assertion is check(ok, what), printed with "FAIL: " when it fails; the
closing line is "NAME: N passed, N failed"."""


class Tally:
    def __init__(self, name):
        self.name, self.passed, self.failed = name, 0, 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: %s" % what)
        return ok

    def close(self, more=""):
        """print the closing line (@more after the counts); the exit
        status: 1 if any failed"""
        print("%s: %d passed, %d failed%s" % (self.name, self.passed,
                                             self.failed, more))
        return 1 if self.failed else 0
