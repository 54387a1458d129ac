// SPDX-License-Identifier: GPL-2.0
/*
 * The commands written to /proc/net/<procname> (procfs-commands.md,
 * "Commands"): flush, finish, reset and the filter in force, changed at
 * run time by `filter ...` and `filter clear`.
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
#include <linux/uaccess.h>
#include "magnet.h"
#include "filter.h"
#include "cmd.h"
#include "ring.h"

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

/*
 * A command, one per write(): -EINVAL with the reason in the kernel log
 * for one that is refused, and recording goes on.
 */
ssize_t magnet_control_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[MAGNET_CMD_MAX_LEN];
	char desc[MAGNET_FILTER_TEXT_MAX];
	struct magnet_filter filt;
	enum magnet_filter_op fop;
	struct magnet_cmd cmd;
	const char *err;
	size_t shown;
	int ret;

	if (count > MAGNET_CMD_MAX_LEN) {
		pr_warn_ratelimited("rejected command: longer than %d bytes\n",
				    MAGNET_CMD_MAX_LEN);
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	shown = count;
	while (shown && (buf[shown - 1] == '\n' || buf[shown - 1] == '\r'))
		shown--;
	if (magnet_cmd_parse(buf, count, &cmd, &err))
		goto reject;

	switch (cmd.op) {
	case MAGNET_CMD_FLUSH:
		break;
	case MAGNET_CMD_FINISH:
		magnet_reader_finish();
		magnet_rings_log("finish", magnet_probes_nmissed());
		break;
	case MAGNET_CMD_RESET:
		magnet_stream_reset();
		break;
	case MAGNET_CMD_FILTER:
		if (magnet_filter_parse(buf, count, &fop, &filt, &err))
			goto reject;
		if (fop != MAGNET_FILTER_CLEAR &&
		    (filt.set & MAGNET_FT_EVENTS) &&
		    (filt.events & MAGNET_LAYER_V3_ONLY) && !magnet_cfg.rate) {
			err = "events: " MAGNET_V3_ONLY_OUTPUTS;
			goto reject;
		}
		ret = magnet_filter_set(fop == MAGNET_FILTER_CLEAR ? NULL : &filt);
		if (ret) {
			pr_warn_ratelimited("rejected command \"%*pE\": cannot apply it (%d); the filter is unchanged\n",
					    (int)shown, buf, ret);
			return -EINVAL;
		}
		magnet_filter_describe(desc, sizeof(desc));
		pr_info("filter in force: %s\n", desc);
		break;
	}
	magnet_wake_reader();
	return count;
reject:
	pr_warn_ratelimited("rejected command \"%*pE\": %s\n", (int)shown, buf,
			    err);
	return -EINVAL;
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
