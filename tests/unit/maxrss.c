// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * maxrss OUTFILE CMD [ARG...]: run CMD (stdin, stdout and stderr
 * inherited), write its peak resident set size in KiB to OUTFILE, and exit
 * with its status. Built without sanitizers so that it stays small: the
 * kernel counts a child's peak from before its exec too.
 */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	struct rusage ru;
	pid_t pid;
	FILE *f;
	int st, err;

	if (argc < 3) {
		fprintf(stderr, "usage: maxrss OUTFILE CMD [ARG...]\n");
		return 125;
	}
	err = posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ);
	if (err) {
		fprintf(stderr, "maxrss: %s: %s\n", argv[2], strerror(err));
		return 127;
	}
	if (wait4(pid, &st, 0, &ru) != pid) {
		perror("maxrss: wait4");
		return 125;
	}
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%ld\n", ru.ru_maxrss) < 0 || fclose(f)) {
		perror(argv[1]);
		return 125;
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}
