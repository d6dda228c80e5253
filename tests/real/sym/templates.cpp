/*
 * C++ names for run-symbols.sh: operator new[] from a function in an
 * anonymous namespace (10 x 4096 B), a function template in a namespace
 * (20 x 8192 B), and a lambda calling malloc (5 x 65536 B).  Each function
 * stores its result before returning, so no call becomes a tail jump.
 */
#include <cstdlib>
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
	return 0;
}
