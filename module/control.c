// SPDX-License-Identifier: GPL-2.0
/*
 * The filter in force, changed at run time by `filter ...` and `filter
 * clear` (procfs-commands.md).
 *
 * The effective filter is the load-time parameters (port, full, direction,
 * fwmark, events) overridden, term by term, by the last `filter` command;
 * `filter clear` returns to the parameters alone. It is published with RCU:
 * a probe handler sees the old filter or the new one, never a mix. Probes
 * for layers or directions the load did not need are registered when a
 * filter first asks for them, and stay registered until unload (the filter
 * decides in the handler whether an event is kept).
 */
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include "magnet.h"
#include "filter.h"

struct magnet_active_filter __rcu *magnet_active;
static DEFINE_MUTEX(magnet_filter_mutex);

static unsigned int magnet_dir_mask(unsigned int direction)
{
	switch (direction) {
	case MAGNET_DIR_OUT:
		return MAGNET_FDIR_OUT;
	case MAGNET_DIR_IN:
		return MAGNET_FDIR_IN;
	default:
		return MAGNET_FDIR_IN | MAGNET_FDIR_OUT;
	}
}

/* load-time parameters, overridden by the terms given (@terms may be NULL) */
static void magnet_filter_effective(struct magnet_filter *eff,
				    const struct magnet_filter *terms)
{
	const struct magnet_config *c = &magnet_cfg;

	memset(eff, 0, sizeof(*eff));
	if (terms)
		*eff = *terms;
	if (!(eff->set & MAGNET_FT_PORT) && c->port) {
		eff->port = c->port;
		eff->set |= MAGNET_FT_PORT;
	}
	if (!(eff->set & MAGNET_FT_DIR)) {
		eff->dir = magnet_dir_mask(c->direction);
		eff->set |= MAGNET_FT_DIR;
	}
	if (!(eff->set & MAGNET_FT_EVENTS)) {
		eff->events = c->events;
		eff->set |= MAGNET_FT_EVENTS;
	}
	if (!(eff->set & MAGNET_FT_FULL)) {
		eff->full = c->full;
		eff->set |= MAGNET_FT_FULL;
	}
	if (!(eff->set & MAGNET_FT_FWMARK) && c->fwmark) {
		eff->fwmark = c->fwmark;
		eff->set |= MAGNET_FT_FWMARK;
	}
}

/* `filter ...` (terms) or `filter clear` and the load (NULL) */
int magnet_filter_set(const struct magnet_filter *terms)
{
	struct magnet_active_filter *new, *old;
	int ret;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	magnet_filter_effective(&new->f, terms);

	/* publish before registering: a new probe's handler reads the filter */
	mutex_lock(&magnet_filter_mutex);
	old = rcu_replace_pointer(magnet_active, new,
				  lockdep_is_held(&magnet_filter_mutex));
	ret = magnet_probes_register(new->f.events, new->f.dir);
	if (ret && old) {
		/* keep the filter that was in force; probes added stay */
		rcu_assign_pointer(magnet_active, old);
		old = new;
	}
	mutex_unlock(&magnet_filter_mutex);
	if (old)
		kfree_rcu(old, rcu);
	return ret;
}

/* The filter in force as text, e.g. "port=5201 dir=io events=tcp full=1". */
void magnet_filter_describe(char *buf, size_t size)
{
	struct magnet_active_filter *a;

	rcu_read_lock();
	a = rcu_dereference(magnet_active);
	if (a)
		magnet_filter_format(buf, size, &a->f);
	else if (size)
		buf[0] = '\0';
	rcu_read_unlock();
}

int magnet_control_init(void)
{
	return magnet_filter_set(NULL);
}

/*
 * The probes off, then the filter freed. Under the filter mutex, like
 * every change of either; the proc files are gone already, so no command
 * can come after it.
 */
void magnet_control_exit(void)
{
	struct magnet_active_filter *a;

	mutex_lock(&magnet_filter_mutex);
	magnet_probes_unregister();	/* returns once no handler runs */
	a = rcu_replace_pointer(magnet_active, NULL,
				lockdep_is_held(&magnet_filter_mutex));
	mutex_unlock(&magnet_filter_mutex);
	synchronize_rcu();	/* and no reader of the filter either */
	kfree(a);
}
