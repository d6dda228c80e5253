/*
 * A parser as bison writes one: the actions are compiled from grammar.c but
 * their lines are grammar.y's (#line), so the line table names grammar.y
 * while the function is declared in grammar.c.  Allocates 64 KiB per action.
 */
#include <stdlib.h>
#include <string.h>

static void *keep[64];

__attribute__((noinline)) static void *reduce(int rule)
{
	void *p;

	switch (rule) {
	case 1:
#line 12 "grammar.y"
		p = malloc(65536);
		break;
	default:
#line 20 "grammar.y"
		p = malloc(131072);
		break;
	}
#line 28 "grammar.c"
	memset(p, rule, 16);
	return p;
}

/* A static initialiser that allocates: no declaring file of its own in C++; here, a constructor. */
__attribute__((constructor)) static void init_tables(void)
{
	keep[63] = malloc(32768);
}

int main(void)
{
	int i;

	for (i = 0; i < 8; i++)
		keep[i] = reduce(i % 2 + 1);
	return 0;
}
