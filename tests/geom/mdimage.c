// SPDX-License-Identifier: GPL-2.0
/*
 * mdimage: write member images laid out by lraid_geom, for comparison with
 * real md (tests/geom/md-crosscheck.sh runs it in a guest).
 *
 *   mdimage LEVEL MEMBERS CHUNK_KIB STRIPES DIR
 *
 * writes DIR/member<r>.img (1 MiB of zeroes, then STRIPES stripes of data,
 * P and Q placed by lraid_geom_map and friends) and DIR/array.img (the
 * logical contents). Every data byte is a function of its logical sector,
 * so any misplaced chunk shows. P is XOR; Q is computed here with a plain
 * GF(2^8) Horner loop (polynomial 0x11D), independent of lraid_gf.
 * If md over the members with --data-offset=1024 reads array.img back and
 * its check finds no mismatch, lraid's layout and Q weighting match md's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lraid_geom.h"

#define DATA_OFFSET	(1024 * 1024)

static void fill_sector(u8 *buf, u64 sector)
{
	u64 x = sector * 0x9e3779b97f4a7c15ULL + 0x6c72616964ULL;
	unsigned int i;

	for (i = 0; i < 512; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = x >> 56;
	}
}

static u8 gf_mul2(u8 x)
{
	return (x << 1) ^ ((x & 0x80) ? 0x1d : 0);
}

int main(int argc, char **argv)
{
	unsigned int level, n, chunk_kib, nr_stripes, r, di, i;
	size_t chunk_bytes;
	struct lraid_geom g;
	FILE *member[LRAID_MAX_MEMBERS], *array;
	u8 *data, *p, *q, *zero;
	char path[4096];
	u64 s, sec;

	if (argc != 6) {
		fprintf(stderr, "usage: %s LEVEL MEMBERS CHUNK_KIB STRIPES DIR\n",
			argv[0]);
		return 2;
	}
	level = atoi(argv[1]);
	n = atoi(argv[2]);
	chunk_kib = atoi(argv[3]);
	nr_stripes = atoi(argv[4]);
	chunk_bytes = (size_t)chunk_kib * 1024;
	if (lraid_geom_init(&g, level, n, chunk_bytes,
			    (u64)nr_stripes * (chunk_bytes >> 9))) {
		fprintf(stderr, "mdimage: bad geometry\n");
		return 2;
	}

	data = calloc(g.nr_data, chunk_bytes);
	p = malloc(chunk_bytes);
	q = malloc(chunk_bytes);
	zero = calloc(1, DATA_OFFSET);
	if (!data || !p || !q || !zero)
		return 1;
	for (r = 0; r < n; r++) {
		snprintf(path, sizeof(path), "%s/member%u.img", argv[5], r);
		member[r] = fopen(path, "wb");
		if (!member[r] || fwrite(zero, DATA_OFFSET, 1, member[r]) != 1) {
			perror(path);
			return 1;
		}
	}
	snprintf(path, sizeof(path), "%s/array.img", argv[5]);
	array = fopen(path, "wb");
	if (!array) {
		perror(path);
		return 1;
	}

	for (s = 0; s < g.nr_stripes; s++) {
		/* logical order: data index di holds chunk s * nr_data + di */
		for (di = 0; di < g.nr_data; di++) {
			u8 *c = data + di * chunk_bytes;

			/* md's definition; lraid's inverse map must agree */
			sec = ((u64)s * g.nr_data + di) * g.chunk_sectors;
			if (lraid_geom_logical(&g, s, di) != sec) {
				fprintf(stderr, "mdimage: lraid_geom_logical(stripe %llu, data %u) = %llu, md's sector %llu\n",
					(unsigned long long)s, di,
					(unsigned long long)lraid_geom_logical(&g, s, di),
					(unsigned long long)sec);
				return 3;
			}
			for (i = 0; i < g.chunk_sectors; i++)
				fill_sector(c + i * 512, sec + i);
			if (fwrite(c, chunk_bytes, 1, array) != 1)
				return 1;
		}
		/* P = xor; Q = sum g^di * D[di], Horner from the top index */
		for (i = 0; i < chunk_bytes; i++) {
			u8 px = 0, qx = 0;

			for (di = g.nr_data; di-- > 0;) {
				u8 d = data[di * chunk_bytes + i];

				px ^= d;
				qx = gf_mul2(qx) ^ d;
			}
			p[i] = px;
			q[i] = qx;
		}
		for (r = 0; r < n; r++) {
			int idx = lraid_geom_data_index(&g, s, r);
			const u8 *src;

			if (idx >= 0)
				src = data + idx * chunk_bytes;
			else if (r == lraid_geom_p_member(&g, s))
				src = p;
			else if (r == lraid_geom_q_member(&g, s))
				src = q;
			else
				return 3;
			if (fwrite(src, chunk_bytes, 1, member[r]) != 1)
				return 1;
		}
	}
	for (r = 0; r < n; r++)
		if (fclose(member[r]))
			return 1;
	if (fclose(array))
		return 1;
	free(data);
	free(p);
	free(q);
	free(zero);
	return 0;
}
