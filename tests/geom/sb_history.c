// SPDX-License-Identifier: GPL-2.0
/*
 * Random histories of one array against lraid's assembly rules
 * (module/lraid_sb.c, as the module and lraidctl use them).
 *
 * A model array of 4-6 members, RAID5 or RAID6, is created, then
 * assembled again and again from random subsets of its members offered in
 * random order, as lraidctl assemble --run would (no --force), and run:
 * writes, member failures and stops, with crashes at any point, including
 * in the middle of a superblock pass (which writes the members in role
 * order, as lraid_sb_write_all() does). Each member's data is a node in a
 * tree of write histories: a write makes a child of the run's node on
 * every member in use. A member that fails takes no more writes, and
 * none is written before the pass recording it is complete (lraid holds
 * them). Superblocks follow the module: a start writes events + 1 and the
 * unusable roles as failed; a failure and a stop each write events + 1.
 *
 * Checked at every assembly:
 *  - the members used all hold the same data (none missed a write the
 *    others took: that would mix histories, corruption);
 *  - no member offered at the top event count holds writes the array
 *    would start without (a tie must never drop a part's writes; parts
 *    that ran apart are refused instead);
 *  - the result does not depend on the order the members are offered in.
 * Also counted: refusals as parts that ran apart, too few members, and
 * histories lost at a lower count (md's rule: the higher count wins).
 *
 *   sb_history [HISTORIES [SEED]]
 */
#include <stdarg.h>

#include "lraid_sb.h"

#define MAXM	6
#define STEPS	24

static u64 rng;

static u32 rnd(u32 n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (u32)(rng >> 11) % n;
}

/* the tree of write histories: node 0 is the created array */
static unsigned int *parent;
static unsigned int nodes, nodes_max;

static unsigned int node_new(unsigned int p)
{
	if (nodes == nodes_max) {
		nodes_max = nodes_max ? 2 * nodes_max : 4096;
		parent = realloc(parent, nodes_max * sizeof(*parent));
		if (!parent) {
			perror("realloc");
			exit(2);
		}
	}
	parent[nodes] = p;
	return nodes++;
}

/* whether node @a is @b or one of its ancestors */
static bool ancestor(unsigned int a, unsigned int b)
{
	for (;;) {
		if (a == b)
			return true;
		if (!b)
			return false;
		b = parent[b];
	}
}

struct model {
	unsigned int n, level;
	struct lraid_sb_info sb[MAXM];	/* by role */
	unsigned int data[MAXM];	/* node each member holds */
	/* the running array */
	u32 in_use, failed;
	u64 events;
	unsigned int cur;
	char log[8192];
	size_t len;
};

static void note(struct model *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct model *m, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (m->len >= sizeof(m->log) - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(m->log + m->len, sizeof(m->log) - m->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		m->len += k;
	if (m->len > sizeof(m->log) - 1)
		m->len = sizeof(m->log) - 1;
}

static void create(struct model *m)
{
	static const u8 uuid[LRAID_SB_UUID_LEN] = { 0x6c, 0x72, 0x61, 0x69 };
	unsigned int r;

	m->n = 4 + rnd(3);
	m->level = m->n > 4 && rnd(2) ? 6 : 5;
	if (m->n == 4 && rnd(2))
		m->level = 6;
	for (r = 0; r < m->n; r++) {
		struct lraid_sb_info *sb = &m->sb[r];

		memset(sb, 0, sizeof(*sb));
		memcpy(sb->uuid, uuid, sizeof(uuid));
		strcpy(sb->name, "history");
		sb->level = m->level;
		sb->layout = LRAID_LAYOUT_LEFT_SYMMETRIC;
		sb->nr_members = m->n;
		sb->role = r;
		sb->chunk_sectors = 128;
		if (lraid_sb_plan(sb, 1 << 20, false)) {
			fprintf(stderr, "lraid_sb_plan failed\n");
			exit(2);
		}
		sb->recovery_offset = LRAID_SB_IN_SYNC;
		sb->events = 1;
		sb->state = LRAID_SB_STATE_CLEAN;
		m->data[r] = 0;
	}
	m->len = 0;
	note(m, "create RAID%u x%u\n", m->level, m->n);
}

/*
 * One superblock pass at m->events to the members in use, in role order.
 * Returns false when a crash cut it (after @cut members; never if @cut is
 * above the member count).
 */
static bool pass(struct model *m, bool clean, unsigned int cut)
{
	unsigned int r, done = 0;

	for (r = 0; r < m->n; r++) {
		if (!(m->in_use & (1U << r)))
			continue;
		if (done++ == cut) {
			note(m, "  crash in the pass at %llu after %u\n",
			     (unsigned long long)m->events, cut);
			return false;
		}
		m->sb[r].events = m->events;
		m->sb[r].failed_mask = m->failed;
		m->sb[r].state = clean ? LRAID_SB_STATE_CLEAN : 0;
	}
	return true;
}

/* where a pass is cut: mostly nowhere */
static unsigned int cut_point(struct model *m)
{
	return rnd(4) ? MAXM + 1 : rnd(m->n);
}

/* run the started array until a stop or a crash */
static void run(struct model *m)
{
	unsigned int tol = m->level == 6 ? 2 : 1, r, op;

	for (;;) {
		op = rnd(10);
		if (op < 5) {
			m->cur = node_new(m->cur);
			for (r = 0; r < m->n; r++)
				if (m->in_use & (1U << r))
					m->data[r] = m->cur;
			note(m, "  write -> node %u\n", m->cur);
		} else if (op < 7) {
			r = rnd(m->n);
			if (!(m->in_use & (1U << r)) ||
			    __builtin_popcount(m->failed) + 1 > tol)
				continue;
			m->in_use &= ~(1U << r);
			m->failed |= 1U << r;
			m->events++;
			note(m, "  role %u fails, recorded at %llu\n", r,
			     (unsigned long long)m->events);
			if (!pass(m, false, cut_point(m)))
				return;
		} else if (op < 8) {
			note(m, "  crash\n");
			return;
		} else {
			m->events++;
			note(m, "  stop at %llu\n", (unsigned long long)m->events);
			pass(m, true, cut_point(m));
			return;
		}
	}
}

static unsigned long assemblies, split, too_few, lost_lower, bad;

static bool fail_history(struct model *m, const char *what)
{
	bad++;
	if (bad <= 3) {
		printf("# %s\n# history:\n", what);
		fputs(m->log, stdout);
	}
	return false;
}

/* assemble from a random subset in random order; false on a violation */
static bool assemble(struct model *m)
{
	struct lraid_sb_info sbs[MAXM], again[MAXM];
	unsigned int order[MAXM], nr = 0, i, j, t, fresh, fresh2, newest;
	struct lraid_sb_roles roles, roles2;
	const char *why = "";
	u64 top = 0;
	int ret, ret2;
	unsigned int want;

	for (i = 0; i < m->n; i++)
		if (rnd(3))
			order[nr++] = i;
	if (nr < 2 || rnd(3) == 0) {
		nr = m->n;
		for (i = 0; i < nr; i++)
			order[i] = i;
	}
	for (i = nr - 1; i > 0; i--) {
		j = rnd(i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	note(m, "assemble");
	for (i = 0; i < nr; i++) {
		sbs[i] = m->sb[order[i]];
		note(m, " %u(ev %llu, failed %#x, node %u)", order[i],
		     (unsigned long long)sbs[i].events, sbs[i].failed_mask,
		     m->data[order[i]]);
		if (sbs[i].events > top)
			top = sbs[i].events;
	}
	note(m, "\n");

	ret = lraid_sb_check_set(sbs, nr, &fresh, &why);
	/* the same members in reverse order must give the same answer */
	for (i = 0; i < nr; i++)
		again[i] = sbs[nr - 1 - i];
	ret2 = lraid_sb_check_set(again, nr, &fresh2, &why);
	if (ret2 != ret)
		return fail_history(m, "the offer order changes the outcome");
	if (ret == -EINVAL) {
		note(m, "  refused: %s\n", why);
		split++;
		return true;
	}
	lraid_sb_roles(sbs, nr, fresh, &roles);
	lraid_sb_roles(again, nr, fresh2, &roles2);
	if (roles.fresh != roles2.fresh || roles.failed != roles2.failed)
		return fail_history(m, "the offer order changes the roles used");
	if (ret == -ENODEV || __builtin_popcount(roles.unusable) >
	    (m->level == 6 ? 2U : 1U)) {
		note(m, "  too few (fresh roles %#x)\n", roles.fresh);
		too_few++;
		return true;
	}
	assemblies++;
	newest = lraid_sb_newest(sbs, nr);
	want = m->data[sbs[newest].role];
	for (i = 0; i < m->n; i++)
		if ((roles.fresh & (1U << i)) && m->data[i] != want)
			return fail_history(m, "a member used holds other data than the reference");
	for (i = 0; i < nr; i++) {
		unsigned int d = m->data[order[i]];

		if (ancestor(d, want))
			continue;
		if (sbs[i].events == top)
			return fail_history(m, "a member at the top count holds writes the array drops");
		lost_lower++;
	}
	note(m, "  started from roles %#x at node %u\n", roles.fresh, want);
	m->in_use = roles.fresh;
	m->failed = roles.unusable;
	m->events = sbs[newest].events + 1;
	m->cur = want;
	if (!pass(m, false, cut_point(m)))
		return true;
	run(m);
	return true;
}

int main(int argc, char **argv)
{
	unsigned long histories = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	unsigned long h;
	struct model *m = calloc(1, sizeof(*m));
	unsigned int s;

	rng = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x6c72616964ULL;
	if (!rng || !m)
		return 2;
	for (h = 0; h < histories; h++) {
		nodes = 0;
		node_new(0);
		create(m);
		for (s = 0; s < STEPS; s++)
			if (!assemble(m))
				break;
	}
	printf("# %lu histories: %lu starts, %lu refused as parts apart, %lu too few, %lu members' writes lost at a lower count\n",
	       histories, assemblies, split, too_few, lost_lower);
	if (bad) {
		printf("FAIL: lraid_sb_history.assembly (%lu histories broke a rule)\n",
		       bad);
		return 1;
	}
	if (!split || !assemblies) {
		printf("FAIL: lraid_sb_history.assembly (the histories never reached a split or a start: they test nothing)\n");
		return 1;
	}
	printf("PASS: lraid_sb_history.assembly\n");
	return 0;
}
