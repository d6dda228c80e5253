# A jemalloc heap profile of n distinct stacks (awk -v seed=S -v n=N -f gen-tree.awk):
# 9 frames each, paths in a tree of fan-out 5 whose first branches are the
# heavy ones, as a program's call tree is; large enough for a walk to be
# split between threads (src/xform/seqs.c).
BEGIN {
	srand(seed);
	print "heap_v2/524288";
	print "  t*: " n ": " n * 4096 " [0: 0]";
	made = 0;
	while (made < n) {
		path = "";
		key = "";
		for (d = 0; d < 8; d++) {
			c = int(rand() * rand() * 5);
			key = key c;
			path = sprintf("0x%x", 4194304 + d * 4096 + c * 64 + 5) " " path;
		}
		if (key in seen)
			continue;
		seen[key] = 1;
		made++;
		print "@ " sprintf("0x%x", 8388608 + (made % 7) * 16) " " path "0x400005";
		print "  t*: 1: " (4096 + (made * 131 + seed) % 9 * 512) " [0: 0]";
	}
	print "";
	print "MAPPED_LIBRARIES:";
	print "00400000-00a00000 r-xp 00000000 08:01 1 /usr/bin/gen";
}
