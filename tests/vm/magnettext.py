"""ttpb2ascii's magnet text (-f magnet), the stable interface, as the
checkers read it:

    from magnettext import rows
    for r in rows(path):        # a dict a record, by the header's names
"""


def rows(path):
    """the records of the magnet text file @path, each a dict of its
    columns by the header line's names"""
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        return [dict(zip(head, l.rstrip("\n").split("\t"))) for l in f]
