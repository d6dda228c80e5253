/*
 * libFuzzer target for what a fleet's ClickHouse sends back and what a
 * ClickHouse URL holds (clickhouse.h), one per FUZZ_KIND: 0 the answer's
 * rows read into a profile (a hostile server), 1 the URL's parts.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/clickhouse.h"
#include "hpa/diag.h"
#include "hpa/profile.h"
#include "read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	hpa_diag_quiet = true;
	if (FUZZ_KIND == 0) {
		struct hpa_profile prof;
		uint32_t input;

		hpa_profile_init(&prof);
		input = hpa_profile_add_input(&prof, "fuzz");
		read_clickhouse_rows(&prof, input, text, size & 1 ? 3 : 1, "fuzz");
		hpa_profile_release(&prof);
	} else {
		struct hpa_ch_url u;
		size_t i;

		if (hpa_ch_url_parse(text, &u) == 0) {
			if (!u.http || !u.database || !*u.database)
				abort();
			for (i = 0; i < u.params_nr; i++)
				if (!u.params[i].key || !u.params[i].value)
					abort();
		}
		hpa_ch_url_release(&u);
	}
	free(text);
	return 0;
}
