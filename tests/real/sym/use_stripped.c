/* Allocates argv[1] blocks of 32768 B through the stripped libstripped.so. */
#include <stdlib.h>

void lib_fill(int n);

int main(int argc, char **argv)
{
	lib_fill(argc > 1 ? atoi(argv[1]) : 1);
	return 0;
}
