/*
 * C++ names for run-symbols.sh: operator new[] from a function in an
 * anonymous namespace (10 x 4096 B), a function template in a namespace
 * (20 x 8192 B), a lambda calling malloc (5 x 65536 B), and containers
 * growing: a vector of 16384 longs (its last buffer, 131072 B, stays) and a
 * map of 2000 nodes, whose memory passes through std::allocator.  Each
 * function stores its result before returning, so no call becomes a tail
 * jump.
 */
#include <cstdlib>
#include <map>
#include <vector>

#define NOINLINE __attribute__((noinline))

static std::vector<void *> keep;
static void *volatile last;

namespace {
struct Blob {
	char data[4096];
};

NOINLINE Blob *make_blobs(int n)
{
	Blob *b = new Blob[n];
	last = b;
	return b;
}
} // namespace

namespace app {
struct Page {
	char b[8192];
};

template <typename T> NOINLINE T *make_one()
{
	T *p = new T();
	last = p;
	return p;
}
} // namespace app

static std::vector<long> *numbers;
static std::map<int, long> *table;

NOINLINE void fill_numbers()
{
	numbers = new std::vector<long>;
	for (long i = 0; i < 16384; i++)
		numbers->push_back(i);
}

NOINLINE void fill_table()
{
	table = new std::map<int, long>;
	for (int i = 0; i < 2000; i++)
		(*table)[i] = i;
}

int main()
{
	keep.reserve(64);
	keep.push_back(make_blobs(10));
	for (int i = 0; i < 20; i++)
		keep.push_back(app::make_one<app::Page>());
	auto grab = [](std::size_t n) NOINLINE {
		void *p = std::malloc(n);
		last = p;
		return p;
	};
	for (int i = 0; i < 5; i++)
		keep.push_back(grab(65536));
	fill_numbers();
	fill_table();
	return 0;
}
