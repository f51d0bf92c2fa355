#!/usr/bin/python3
# podman-compose as Debian bookworm ships it (1.0.3), with one fix: its interpolation leaves
# `${VAR:-}` (an empty default, which docker-compose.yml uses for optional settings) in the value as
# literal text instead of the empty string. Later podman-compose releases accept the empty default;
# this is the same pattern with `+` turned into `*`. Nothing else is changed.
import re
import sys

sys.path.insert(0, '/usr/lib/python3/dist-packages')
import podman_compose  # noqa: E402

podman_compose.var_re = re.compile(r"""
    \$(?:
        (?P<escaped>\$) |
        (?P<named>[_a-zA-Z][_a-zA-Z0-9]*) |
        (?:{
            (?P<braced>[_a-zA-Z][_a-zA-Z0-9]*)
            (?:
                (?::?-(?P<default>[^}]*)) |
                (?::?\?(?P<err>[^}]*))
            )?
        })
    )
""", re.VERBOSE)

if __name__ == '__main__':
    podman_compose.main()
