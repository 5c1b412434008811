/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every object has in common: its head (struct sd_obj), the check
 * that turns a consumer's handle into a live object, the three entry
 * points that take a handle of any kind, the debug output, and the IA's
 * handles (the registry's indices and our pointers).
 *
 * A handle is trusted only as far as this file checks it: not NULL, not
 * below one page (the registry's IA indices live there, and it maps them
 * to IA pointers before calling us), and pointing at a head whose magic
 * names a live object of the expected kind. A handle to freed memory is
 * the consumer's error; the magic, cleared at free, catches the common
 * case of a handle used again after its object was freed.
 */
#include <assert.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "ia.h"
#include "obj.h"
#include "refuse.h"
#include "trace.h"
#include "util.h"

/* obj.h: provider.c's constructor sets it; const afterwards. */
DAT_PROVIDER *sd_obj_ud_table;

void sd_obj_init(struct sd_obj *obj, struct sd_ia *ia, uint32_t magic,
		 DAT_HANDLE_TYPE type)
{
	obj->provider = ia->obj.provider;
	obj->magic = magic;
	obj->type = type;
	obj->ia = ia;
	obj->context.as_64 = 0;
	obj->num = sd_obj_number(type);
	sd_list_init(&obj->node);
}

struct sd_obj *sd_obj_check(DAT_HANDLE h, uint32_t magic)
{
	struct sd_obj *obj = h;

	if ((uintptr_t)h < SD_HANDLE_MIN || obj->magic != magic)
		return NULL;
	return obj;
}

/* A live object of any kind, for the generic entry points; else NULL. */
static struct sd_obj *any_obj(DAT_HANDLE h)
{
	static const uint32_t live[] = {
		SD_MAGIC_IA, SD_MAGIC_PZ, SD_MAGIC_LMR, SD_MAGIC_RMR,
		SD_MAGIC_EVD, SD_MAGIC_CNO, SD_MAGIC_EP, SD_MAGIC_PSP,
		SD_MAGIC_RSP, SD_MAGIC_CR, SD_MAGIC_SRQ, SD_MAGIC_CSP,
	};
	struct sd_obj *obj = h;
	size_t i;

	if ((uintptr_t)h < SD_HANDLE_MIN)
		return NULL;
	for (i = 0; i < SD_ARRAY_SIZE(live); i++)
		if (obj->magic == live[i])
			return obj;
	return NULL;
}

/*
 * The consumer context is one 64-bit word, stored and loaded atomically:
 * any thread may set or get it at any time (DAT 2.0, 6.3.2).
 */
DAT_RETURN DAT_API sd_set_consumer_context(DAT_HANDLE h, DAT_CONTEXT context)
{
	struct sd_obj *obj = any_obj(h);

	if (obj == NULL)
		return sd_refuse_handle("set_consumer_context", NULL, "handle",
					h, 0, DAT_INVALID_HANDLE1);
	__atomic_store_n(&obj->context.as_64, context.as_64, __ATOMIC_RELAXED);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_get_consumer_context(DAT_HANDLE h, DAT_CONTEXT *context)
{
	struct sd_obj *obj = any_obj(h);

	if (obj == NULL)
		return sd_refuse_handle("get_consumer_context", NULL, "handle",
					h, 0, DAT_INVALID_HANDLE1);
	if (context == NULL)
		return sd_refuse_null("get_consumer_context", obj, "context",
				      DAT_INVALID_ARG2);
	context->as_64 = __atomic_load_n(&obj->context.as_64, __ATOMIC_RELAXED);
	return DAT_SUCCESS;
}

DAT_RETURN DAT_API sd_get_handle_type(DAT_HANDLE h, DAT_HANDLE_TYPE *type)
{
	struct sd_obj *obj = any_obj(h);

	if (obj == NULL)
		return sd_refuse_handle("get_handle_type", NULL, "handle", h, 0,
					DAT_INVALID_HANDLE1);
	if (type == NULL)
		return sd_refuse_null("get_handle_type", obj, "handle_type",
				      DAT_INVALID_ARG2);
	*type = obj->type;
	return DAT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* IA handles: the registry's indices and the provider's pointers       */

struct sd_ia *sd_obj_ia(DAT_IA_HANDLE h)
{
	struct sd_obj *obj;

	/* Small values are the registry's indices: map them. */
	if (h != DAT_HANDLE_NULL && (uintptr_t)h < SD_HANDLE_MIN) {
		DAT_IA_HANDLE p = DAT_HANDLE_NULL;

		if (dats_get_ia_handle(h, &p) != DAT_SUCCESS)
			return NULL;
		h = p;
	}
	obj = sd_obj_check(h, SD_MAGIC_IA);
	return obj != NULL ? sd_container_of(obj, struct sd_ia, obj) : NULL;
}

DAT_IA_HANDLE sd_obj_ia_handle(struct sd_ia *ia)
{
	DAT_IA_HANDLE h;

	/* Before the registry has listed it (inside ia_open), the pointer. */
	if (dats_get_ia_handle(ia, &h) != DAT_SUCCESS)
		return ia;
	return h;
}

/*
 * The close ops (obj.h, SD_OBJ_CLOSE_OP): written by constructors
 * while the library loads, before any thread of it exists; read only
 * afterwards, so no lock.
 */
static struct {
	uint32_t	magic;
	sd_obj_close_fn	fn;
} closers[8];

void sd_obj_set_close(uint32_t magic, sd_obj_close_fn fn)
{
	size_t i;

	for (i = 0; i < SD_ARRAY_SIZE(closers); i++) {
		if (closers[i].fn == NULL || closers[i].magic == magic) {
			closers[i].magic = magic;
			closers[i].fn = fn;
			return;
		}
	}
	assert(!"more kinds than closers[] holds");
}

void sd_obj_close(struct sd_obj *o)
{
	uint32_t magic = o->magic;
	size_t i;

	for (i = 0; i < SD_ARRAY_SIZE(closers) && closers[i].fn; i++) {
		if (closers[i].magic == magic) {
			closers[i].fn(o);
			return;
		}
	}
	sd_log("no close op for object kind 0x%08x", (unsigned)magic);
	assert(!"no close op registered");
}

bool sd_obj_claim(struct sd_obj *o, uint32_t magic, uint8_t *action,
		  uint8_t pending, uint8_t to)
{
	struct sd_ia *ia = o->ia;
	bool ok;

	pthread_mutex_lock(&ia->lock);
	ok = *action == pending && o->magic == magic;
	if (ok) {
		*action = to;
		o->magic = SD_MAGIC_DEAD;
		sd_list_del(&o->node);
	}
	pthread_mutex_unlock(&ia->lock);
	return ok;
}

void sd_obj_unclaim(struct sd_obj *o, uint32_t magic, uint8_t *action,
		    uint8_t pending, struct sd_list *list)
{
	struct sd_ia *ia = o->ia;

	pthread_mutex_lock(&ia->lock);
	*action = pending;
	o->magic = magic;
	sd_list_add_tail(list, &o->node);
	pthread_mutex_unlock(&ia->lock);
}
