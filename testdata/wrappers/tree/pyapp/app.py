"""A tiny maintenance script with two deliberate weaknesses for bandit."""
import subprocess
import sys


def run(user_command):
    # Deliberately unsafe: the user's text reaches a shell.
    return subprocess.call(user_command, shell=True)


if __name__ == "__main__":
    run(sys.argv[1])
