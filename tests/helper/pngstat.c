/*
 * Test helper: is a screenshot blank?  Prints "WIDTHxHEIGHT colours=N" for
 * an 8-bit RGB or RGBA, non-interlaced PNG (what headless Chromium writes),
 * N being the number of distinct colours (counted up to 65536).
 *
 * usage: pngstat FILE.png
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

int main(int argc, char **argv)
{
	FILE *fp = argc == 2 ? fopen(argv[1], "rb") : NULL;
	unsigned char *file = NULL, *idat = NULL, *raw = NULL;
	size_t len = 0, alloc = 0, ilen = 0, n, pos;
	uint32_t w = 0, h = 0, bpp = 0, x, y, *seen, colours = 0;
	uLongf rawlen;

	if (!fp)
		return fprintf(stderr, "usage: pngstat FILE.png\n"), 2;
	do {
		if (len + 65536 > alloc && !(file = realloc(file, alloc = (alloc + 65536) * 2)))
			return 2;
		n = fread(file + len, 1, 65536, fp);
		len += n;
	} while (n > 0);
	fclose(fp);
	if (len < 8 || memcmp(file, "\x89PNG\r\n\x1a\n", 8))
		return fprintf(stderr, "not a PNG\n"), 1;
	idat = malloc(len);
	for (pos = 8; pos + 12 <= len;) {
		uint32_t clen = be32(file + pos);
		const unsigned char *type = file + pos + 4, *data = file + pos + 8;
		if (clen > len - pos - 12)
			return fprintf(stderr, "bad chunk\n"), 1;
		if (!memcmp(type, "IHDR", 4) && clen >= 13) {
			w = be32(data);
			h = be32(data + 4);
			if (data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12] != 0)
				return fprintf(stderr, "not 8-bit RGB(A), non-interlaced\n"), 1;
			bpp = data[9] == 6 ? 4 : 3;
		} else if (!memcmp(type, "IDAT", 4)) {
			memcpy(idat + ilen, data, clen);
			ilen += clen;
		}
		pos += 12 + clen;
	}
	if (!w || !h || w > 20000 || h > 20000)
		return fprintf(stderr, "bad size\n"), 1;
	rawlen = (uLongf)(w * bpp + 1) * h;
	raw = malloc(rawlen);
	if (!raw || uncompress(raw, &rawlen, idat, ilen) != Z_OK || rawlen != (uLongf)(w * bpp + 1) * h)
		return fprintf(stderr, "bad image data\n"), 1;
	for (y = 0; y < h; y++) {   /* undo the filters in place */
		unsigned char *row = raw + (size_t)y * (w * bpp + 1), f = row[0], *p = row + 1;
		unsigned char *up = y ? p - (w * bpp + 1) : NULL;
		for (x = 0; x < w * bpp; x++) {
			int a = x >= bpp ? p[x - bpp] : 0, b = up ? up[x] : 0, c = up && x >= bpp ? up[x - bpp] : 0;
			p[x] = (unsigned char)(p[x] + (f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 :
						       f == 4 ? paeth(a, b, c) : 0));
		}
	}
	seen = calloc(1 << 20, sizeof(*seen));   /* open addressing on RGB + 1 */
	for (y = 0; y < h && colours < 65536; y++) {
		const unsigned char *p = raw + (size_t)y * (w * bpp + 1) + 1;
		for (x = 0; x < w && colours < 65536; x++, p += bpp) {
			uint32_t rgb = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2], k = (rgb * 2654435761u) >> 12;
			while (seen[k] && seen[k] != rgb + 1)
				k = (k + 1) & ((1 << 20) - 1);
			if (!seen[k]) {
				seen[k] = rgb + 1;
				colours++;
			}
		}
	}
	printf("%ux%u colours=%u\n", w, h, colours);
	free(seen);
	free(raw);
	free(idat);
	free(file);
	return 0;
}
