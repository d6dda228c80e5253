/* Demangling, jeprof's short names (FORMATS.md 7.3) and allocator names. */
#include "hpa/compat.h"

#include <stdlib.h>

#include "hpa/names.h"
#include "hpa/strip.h"
#include "hpa/symbolize.h"
#include "test.h"

static void check_short(const char *in, const char *want)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", in);
	hpa_short_name(buf);
	CHECK_STR_EQ(buf, want);
}

static void check_go(const char *in, const char *want)
{
	char *s = hpa_lang_short_name(in, HPA_LANG_GO);

	CHECK_STR_EQ(s, want);
	free(s);
}

static void check_demangle(const char *in, const char *want)
{
	char *out = hpa_demangle(in);

	if (!want)
		CHECK(out == NULL);
	else
		CHECK_STR_EQ(out, want);
	free(out);
}

int main(void)
{
	check_short("operator new(unsigned long)", "operator new");
	check_short("void* newImpl<false>(unsigned long)", "void* newImpl");
	check_short("std::map<int, std::string>::operator[](int const&)", "std::map::operator[]");
	check_short("(anonymous namespace)::do_malloc(unsigned long)", "::do_malloc");
	check_short("foo(int) const", "foo");
	/*
	 * Innermost groups go first, pass by pass: an enclosing group goes
	 * with the " const" that follows it once its inner and later groups
	 * are gone; a turbofish takes its "::" only when "::" stands right
	 * before it at its turn.
	 */
	check_short("f(() )()const constx::g(int) const", "fx::g");
	check_short("std::a<b<c>>::<<d> >e::<f>", "std::ae");
	check_short("ns::F<x<y>>::<z>::g(void (*)(int)) const", "ns::F::g");
	check_short("std::__throw_ios_failure(char const*, int)@@GLIBCXX_3.4.26<00000000000a0a67>",
		    "std::__throw_ios_failure@@GLIBCXX_3.4.26");
	check_short("std::basic_ostream<char, std::char_traits<char> >& std::operator<< <char>"
		    "(std::basic_ostream<char, std::char_traits<char> >&, char const*)",
		    "std::operator<<");
	check_short("app::build[abi:cxx11](int)", "app::build[abi:cxx11]");
	check_short("std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>"
		    "(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, "
		    "int const&)", "std::vector::_M_realloc_insert");
	check_short("main", "main");
	check_short("<alloc::raw_vec::RawVecInner<A>>::try_allocate_in", "alloc::raw_vec::RawVecInner::try_allocate_in");
	check_short("<alloc::vec::Vec<T> as core::clone::Clone>::clone", "alloc::vec::Vec::clone");
	check_short("alloc::vec::from_elem::<u8>", "alloc::vec::from_elem");
	check_short("<std::collections::hash::map::HashMap<K, V, S>>::insert", "std::collections::hash::map::HashMap::insert");
	check_short("rs::store::keep_many", "rs::store::keep_many");

	/* Go: the package is the last path element that is not a major version (go tool pprof) */
	check_go("github.com/dgraph-io/badger/v3.(*DB).View", "badger.(*DB).View");
	check_go("github.com/dgraph-io/badger/v12.(*DB).View", "badger.(*DB).View");
	check_go("example.com/v3.F", "example.com.F");
	check_go("gopkg.in/yaml.v3.(*decoder).unmarshal", "yaml.v3.(*decoder).unmarshal");
	check_go("github.com/x/v1.F", "v1.F");
	check_go("github.com/x/v2pkg.F", "v2pkg.F");
	check_go("github.com/google/pprof/profile.(*Profile).postDecode", "profile.(*Profile).postDecode");
	check_go("runtime.mallocgc", "runtime.mallocgc");

	check_demangle("_Znwm", "operator new(unsigned long)");
	check_demangle("_Znam", "operator new[](unsigned long)");
	check_demangle("_ZN3app5buildB5cxx11Ei", "app::build[abi:cxx11](int)");
	check_demangle("_ZN12_GLOBAL__N_19do_mallocEm", "(anonymous namespace)::do_malloc(unsigned long)");
	check_demangle("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write");
	check_demangle("_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar");
	check_demangle("malloc", NULL);
	check_demangle("malloc@@GLIBC_2.2.5", "malloc");
	check_demangle("_Znwm@@GLIBCXX_3.4", "operator new(unsigned long)");

	{
		char a[] = "(anonymous namespace)::make_blobs(int) [clone .constprop.0]";
		char b[] = "fill.constprop.0.isra.0";
		char c[] = "copy_string.cold";
		char d[] = "main::{lambda(unsigned long)#1}::operator()(unsigned long) const [clone .isra.0]";
		char e[] = "v1.2.3";
		hpa_strip_clone_suffix(a);
		hpa_strip_clone_suffix(b);
		hpa_strip_clone_suffix(c);
		hpa_strip_clone_suffix(d);
		hpa_strip_clone_suffix(e);
		CHECK_STR_EQ(a, "(anonymous namespace)::make_blobs(int)");
		CHECK_STR_EQ(b, "fill");
		CHECK_STR_EQ(c, "copy_string");
		CHECK_STR_EQ(d, "main::{lambda(unsigned long)#1}::operator()(unsigned long) const");
		CHECK_STR_EQ(e, "v1.2.3");
		hpa_short_name(d);
		CHECK_STR_EQ(d, "main::{lambda#1}::operator");
	}

	CHECK(hpa_is_allocator_name("malloc"));
	CHECK(hpa_is_allocator_name("_malloc"));
	CHECK(hpa_is_allocator_name("operator new"));
	CHECK(hpa_is_allocator_name("operator new[]"));
	CHECK(hpa_is_allocator_name("je_prof_backtrace"));
	CHECK(hpa_is_allocator_name("_rjem_je_malloc_default"));
	CHECK(hpa_is_allocator_name("prof_backtrace_impl"));
	CHECK(hpa_is_allocator_name("tcmalloc::allocate_full_malloc_oom"));
	CHECK(hpa_is_allocator_name("::do_malloc"));
	CHECK(hpa_is_allocator_name("alloc::alloc::exchange_malloc"));
	CHECK(hpa_is_allocator_name("__rust_alloc"));
	CHECK(hpa_is_allocator_name("alloc::raw_vec::RawVecInner::try_allocate_in"));
	CHECK(hpa_is_allocator_name("alloc::vec::from_elem"));
	CHECK(!hpa_is_allocator_name("rs::make_vec"));
	CHECK(!hpa_is_allocator_name("allocate_dtv"));
	CHECK(!hpa_is_allocator_name("main"));
	CHECK(!hpa_is_allocator_name("mallocator"));
	CHECK(!hpa_is_allocator_name("arena_alloc_block"));
	CHECK(!hpa_is_allocator_name("strdup"));
	TEST_MAIN_END();
}
