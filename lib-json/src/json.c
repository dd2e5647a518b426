/* lib-json: JSON values: creation, access, copies, comparison, hashing and
 * destruction.  Our own implementation of OVS's json API. */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "openvswitch/dynamic-string.h"
#include "json-private.h"
#include "shash-private.h"

const char *
json_type_to_string(enum json_type type)
{
    switch (type) {
    case JSON_NULL:
        return "null";
    case JSON_FALSE:
        return "false";
    case JSON_TRUE:
        return "true";
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_INTEGER:
    case JSON_REAL:
        return "number";
    case JSON_STRING:
        return "string";
    case JSON_N_TYPES:
    case JSON_SERIALIZED_OBJECT:
    default:
        return "<invalid>";
    }
}

/* Scalars. */

struct json *
json_null_create(void)
{
    return json_alloc__(JSON_NULL);
}

struct json *
json_boolean_create(bool b)
{
    return json_alloc__(b ? JSON_TRUE : JSON_FALSE);
}

struct json *
json_integer_create(long long int integer)
{
    struct json *json = json_alloc__(JSON_INTEGER);
    json->integer = integer;
    return json;
}

struct json *
json_real_create(double real)
{
    struct json *json = json_alloc__(JSON_REAL);
    json->real = real;
    return json;
}

/* Strings. */

struct json *
json_string_create_len(const char *s, size_t len)
{
    return json_string_create_len__(s, len);
}

struct json *
json_string_create(const char *s)
{
    return json_string_create_len(s, strlen(s));
}

/* Takes ownership of 's' (from malloc()).  A short 's' is copied inline and
 * freed, so that every string of up to JSON_STRING_INLINE_LEN bytes has the
 * inline form. */
struct json *
json_string_create_nocopy(char *s)
{
    size_t len = strlen(s);
    struct json *json = json_alloc__(JSON_STRING);

    if (len <= JSON_STRING_INLINE_LEN) {
        json->storage_type = JSON_STORAGE_INLINE;
        memcpy(json->str, s, len + 1);
        free(s);
    } else {
        json->str_ptr = s;
    }
    return json;
}

struct json *
json_serialized_object_create(const struct json *src)
{
    struct json *json = json_alloc__(JSON_SERIALIZED_OBJECT);
    json->str_ptr = json_to_string(src, JSSF_SORT);
    return json;
}

const char *
json_string(const struct json *json)
{
    ovs_assert(json->type == JSON_STRING);
    return json_str__(json);
}

const char *
json_serialized_object(const struct json *json)
{
    ovs_assert(json->type == JSON_SERIALIZED_OBJECT);
    return json->str_ptr;
}

bool
json_boolean(const struct json *json)
{
    ovs_assert(json->type == JSON_TRUE || json->type == JSON_FALSE);
    return json->type == JSON_TRUE;
}

double
json_real(const struct json *json)
{
    ovs_assert(json->type == JSON_REAL || json->type == JSON_INTEGER);
    return json->type == JSON_REAL ? json->real : (double) json->integer;
}

int64_t
json_integer(const struct json *json)
{
    ovs_assert(json->type == JSON_INTEGER);
    return json->integer;
}

/* Arrays. */

static inline struct json **
array_elems(const struct json *json)
{
    return json->storage_type == JSON_STORAGE_INLINE
           ? (struct json **) json->elems : json->array.elems;
}

static inline size_t
array_n(const struct json *json)
{
    return json->storage_type == JSON_STORAGE_INLINE
           ? json->n_inline : json->array.n;
}

struct json *
json_array_create_empty(void)
{
    struct json *json = json_alloc__(JSON_ARRAY);
    json->storage_type = JSON_STORAGE_INLINE;
    json->n_inline = 0;
    return json;
}

/* Creates an array of the 'n' values in 'elements' and takes ownership of
 * both (the 'elements' vector must come from malloc()). */
struct json *
json_array_create(struct json **elements, size_t n)
{
    struct json *json = json_alloc__(JSON_ARRAY);

    if (n <= JSON_ARRAY_INLINE_LEN) {
        json->storage_type = JSON_STORAGE_INLINE;
        json->n_inline = n;
        if (n) {
            memcpy(json->elems, elements, n * sizeof *elements);
        }
        free(elements);
    } else {
        json->array.elems = elements;
        json->array.n = n;
        json->array.n_allocated = n;
    }
    return json;
}

struct json *
json_array_create_1(struct json *elem0)
{
    struct json *json = json_array_create_empty();
    json->n_inline = 1;
    json->elems[0] = elem0;
    return json;
}

struct json *
json_array_create_2(struct json *elem0, struct json *elem1)
{
    struct json *json = json_array_create_empty();
    json->n_inline = 2;
    json->elems[0] = elem0;
    json->elems[1] = elem1;
    return json;
}

struct json *
json_array_create_3(struct json *elem0, struct json *elem1,
                    struct json *elem2)
{
    struct json *json = json_array_create_empty();
    json->n_inline = 3;
    json->elems[0] = elem0;
    json->elems[1] = elem1;
    json->elems[2] = elem2;
    return json;
}

/* Appends 'element' to 'array_', taking ownership.  The 4th element moves
 * an inline array to the heap. */
void
json_array_add(struct json *json, struct json *element)
{
    ovs_assert(json->type == JSON_ARRAY);
    if (json->storage_type == JSON_STORAGE_INLINE) {
        size_t n = json->n_inline;
        if (n < JSON_ARRAY_INLINE_LEN) {
            json->elems[json->n_inline++] = element;
            return;
        } else {
            struct json **elems = xmalloc(2 * n * sizeof *elems);
            memcpy(elems, json->elems, n * sizeof *elems);
            json->storage_type = JSON_STORAGE_DYNAMIC;
            json->n_inline = 0;
            json->array.elems = elems;
            json->array.n = n;
            json->array.n_allocated = 2 * n;
        }
    }
    if (json->array.n >= json->array.n_allocated) {
        json->array.n_allocated = json->array.n_allocated * 2 + 1;
        json->array.elems = xrealloc(json->array.elems,
                                     json->array.n_allocated
                                     * sizeof *json->array.elems);
    }
    json->array.elems[json->array.n++] = element;
}

/* Frees unused capacity; an array that fits moves back inline. */
void
json_array_trim(struct json *json)
{
    ovs_assert(json->type == JSON_ARRAY);
    if (json->storage_type == JSON_STORAGE_INLINE) {
        return;
    }
    if (json->array.n <= JSON_ARRAY_INLINE_LEN) {
        struct json **elems = json->array.elems;
        size_t n = json->array.n;

        json->storage_type = JSON_STORAGE_INLINE;
        json->n_inline = n;
        if (n) {
            memcpy(json->elems, elems, n * sizeof *elems);
        }
        free(elems);
    } else if (json->array.n < json->array.n_allocated) {
        json->array.n_allocated = json->array.n;
        json->array.elems = xrealloc(json->array.elems, json->array.n
                                     * sizeof *json->array.elems);
    }
}

size_t
json_array_size(const struct json *json)
{
    ovs_assert(json->type == JSON_ARRAY);
    return array_n(json);
}

struct json *
json_array_at(const struct json *json, size_t index)
{
    ovs_assert(json->type == JSON_ARRAY && index < array_n(json));
    return array_elems(json)[index];
}

/* Replaces element 'index' of 'json' by 'value' and destroys the old one. */
void
json_array_set(struct json *json, size_t index, struct json *value)
{
    struct json **elems;

    ovs_assert(json->type == JSON_ARRAY && index < array_n(json));
    elems = array_elems(json);
    json_destroy(elems[index]);
    elems[index] = value;
}

/* Removes the last element of 'json' and returns it (the caller owns it),
 * or returns NULL if 'json' is empty. */
struct json *
json_array_pop(struct json *json)
{
    ovs_assert(json->type == JSON_ARRAY);
    if (json->storage_type == JSON_STORAGE_INLINE) {
        return json->n_inline ? json->elems[--json->n_inline] : NULL;
    }
    return json->array.n ? json->array.elems[--json->array.n] : NULL;
}

bool
json_array_contains_string(const struct json *json, const char *str)
{
    size_t i, n = json_array_size(json);
    struct json **elems = array_elems(json);

    for (i = 0; i < n; i++) {
        if (elems[i]->type == JSON_STRING
            && !strcmp(json_str__(elems[i]), str)) {
            return true;
        }
    }
    return false;
}

/* Objects.  The "struct shash" is allocated together with the "struct json"
 * (and, for parsed objects, with the member array and the names). */

struct json *
json_object_create_sized__(size_t n_nodes, size_t names_len, char **namesp)
{
    size_t size = sizeof(struct json) + sizeof(struct shash)
                  + n_nodes * sizeof(struct shash_node) + names_len;
    struct json *json = xmalloc(size);
    struct shash *sh = (struct shash *) (json + 1);

    json->type = JSON_OBJECT;
    json->storage_type = JSON_STORAGE_DYNAMIC;
    json->n_inline = 0;
    json->count = 1;
    json->object = sh;
    shash_init(sh);
    if (n_nodes) {
        sh->nodes = (struct shash_node *) (sh + 1);
        sh->allocated = n_nodes;
        sh->nodes_owned = false;
    }
    if (names_len) {
        char *names = (char *) (sh + 1) + n_nodes * sizeof(struct shash_node);
        sh->names_lo = names;
        sh->names_hi = names + names_len;
        *namesp = names;
    }
    return json;
}

struct json *
json_object_create(void)
{
    return json_object_create_sized__(0, 0, NULL);
}

struct shash *
json_object(const struct json *json)
{
    ovs_assert(json->type == JSON_OBJECT);
    return json->object;
}

void
json_object_put(struct json *json, const char *name, struct json *value)
{
    json_destroy(shash_replace(json_object(json), name, value));
}

void
json_object_put_nocopy(struct json *json, char *name, struct json *value)
{
    json_destroy(shash_replace_nocopy(json_object(json), name, value));
}

void
json_object_put_string(struct json *json, const char *name, const char *value)
{
    json_object_put(json, name, json_string_create(value));
}

void
json_object_put_format(struct json *json,
                       const char *name, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    json_object_put(json, name,
                    json_string_create_nocopy(xvasprintf(format, args)));
    va_end(args);
}

/* Returns the value of member 'name' of object 'json', or NULL. */
struct json *
json_object_get(const struct json *json, const char *name)
{
    return shash_find_data(json_object(json), name);
}

/* Removes member 'name' from 'json' and destroys its value.  Returns true if
 * there was such a member. */
bool
json_object_delete(struct json *json, const char *name)
{
    struct shash *sh = json_object(json);
    size_t i = shash_find_idx__(sh, name, strlen(name));

    if (i == SIZE_MAX) {
        return false;
    }
    json_destroy(shash_delete(sh, &sh->nodes[i]));
    return true;
}

/* Destruction. */

void
json_destroy__(struct json *json, bool yield)
{
    size_t i;

    (void) yield;
    switch (json->type) {
    case JSON_OBJECT: {
        struct shash *sh = json->object;
        for (i = 0; i < sh->n; i++) {
            json_destroy(sh->nodes[i].data);
        }
        shash_destroy(sh);
        break;
    }
    case JSON_ARRAY: {
        size_t n = array_n(json);
        struct json **elems = array_elems(json);
        for (i = 0; i < n; i++) {
            json_destroy(elems[i]);
        }
        if (json->storage_type == JSON_STORAGE_DYNAMIC) {
            free(json->array.elems);
        }
        break;
    }
    case JSON_STRING:
    case JSON_SERIALIZED_OBJECT:
        if (json->storage_type == JSON_STORAGE_DYNAMIC) {
            json_free_str__(json);
        }
        break;
    case JSON_NULL:
    case JSON_FALSE:
    case JSON_TRUE:
    case JSON_INTEGER:
    case JSON_REAL:
        break;
    case JSON_N_TYPES:
    default:
        ovsjson_abort("json_destroy: bad type");
    }
    free(json);
}

/* Copies. */

struct json *
json_nullable_clone(const struct json *json)
{
    return json ? json_clone(json) : NULL;
}

static struct json *
deep_clone_object(const struct shash *src)
{
    size_t i, names_len = 0;
    struct json *json;
    struct shash *sh;
    char *names = NULL;

    for (i = 0; i < src->n; i++) {
        names_len += strlen(src->nodes[i].name) + 1;
    }
    json = json_object_create_sized__(src->n, names_len, &names);
    sh = json->object;
    for (i = 0; i < src->n; i++) {
        size_t len = strlen(src->nodes[i].name) + 1;
        memcpy(names, src->nodes[i].name, len);
        sh->nodes[i].name = names;
        sh->nodes[i].data = json_deep_clone(src->nodes[i].data);
        names += len;
    }
    sh->n = src->n;
    sh->sorted = src->sorted;
    shash_fixup__(sh);
    return json;
}

static struct json *
deep_clone_array(const struct json *src)
{
    size_t i, n = array_n(src);
    struct json **src_elems = array_elems(src);
    struct json *json = json_alloc__(JSON_ARRAY);
    struct json **elems;

    if (n <= JSON_ARRAY_INLINE_LEN) {
        json->storage_type = JSON_STORAGE_INLINE;
        json->n_inline = n;
        elems = json->elems;
    } else {
        elems = xmalloc(n * sizeof *elems);
        json->array.elems = elems;
        json->array.n = json->array.n_allocated = n;
    }
    for (i = 0; i < n; i++) {
        elems[i] = json_deep_clone(src_elems[i]);
    }
    return json;
}

struct json *
json_deep_clone(const struct json *json)
{
    struct json *copy;

    switch (json->type) {
    case JSON_OBJECT:
        return deep_clone_object(json->object);
    case JSON_ARRAY:
        return deep_clone_array(json);
    case JSON_STRING:
        if (json->storage_type == JSON_STORAGE_INLINE) {
            copy = json_alloc__(JSON_STRING);
            copy->storage_type = JSON_STORAGE_INLINE;
            memcpy(copy->str, json->str, sizeof copy->str);
            return copy;
        }
        return json_string_create_len__(json->str_ptr,
                                        strlen(json->str_ptr));
    case JSON_SERIALIZED_OBJECT:
        copy = json_alloc__(JSON_SERIALIZED_OBJECT);
        copy->str_ptr = xstrdup(json->str_ptr);
        return copy;
    case JSON_NULL:
    case JSON_FALSE:
    case JSON_TRUE:
        return json_alloc__(json->type);
    case JSON_INTEGER:
        return json_integer_create(json->integer);
    case JSON_REAL:
        return json_real_create(json->real);
    case JSON_N_TYPES:
    default:
        ovsjson_abort("json_deep_clone: bad type");
    }
}

/* Hashing, with the same values as OVS's json_hash() in a default build. */

size_t
json_hash(const struct json *json, size_t basis_)
{
    uint32_t basis = (uint32_t) basis_;

    switch (json->type) {
    case JSON_OBJECT: {
        const struct shash_node *buf[16], **nodes;
        size_t i, n;

        n = shash_sorted_nodes__(json->object, buf, 16, &nodes);
        for (i = 0; i < n; i++) {
            basis = hash_string(nodes[i]->name, basis);
            basis = (uint32_t) json_hash(nodes[i]->data, basis);
        }
        if (nodes != buf) {
            free(nodes);
        }
        return basis;
    }
    case JSON_ARRAY: {
        size_t i, n = array_n(json);
        struct json **elems = array_elems(json);

        basis = hash_int((uint32_t) n, basis);
        for (i = 0; i < n; i++) {
            basis = (uint32_t) json_hash(elems[i], basis);
        }
        return basis;
    }
    case JSON_STRING:
    case JSON_SERIALIZED_OBJECT:
        return hash_string(json_str__(json), basis);
    case JSON_NULL:
    case JSON_FALSE:
    case JSON_TRUE:
        return hash_int((uint32_t) json->type << 8, basis);
    case JSON_INTEGER:
        return hash_int((uint32_t) json->integer, basis);
    case JSON_REAL: {
        uint32_t w[2];
        memcpy(w, &json->real, sizeof w);
        return hash_3words(w[0], w[1], basis);
    }
    case JSON_N_TYPES:
    default:
        ovsjson_abort("json_hash: bad type");
    }
}

/* Equality. */

static bool
equal_object(const struct shash *a, const struct shash *b)
{
    size_t i;

    if (a->n != b->n) {
        return false;
    }
    for (i = 0; i < a->n; i++) {
        const struct shash_node *an = &a->nodes[i];
        const struct shash_node *bn;

        /* Same position first: equal objects usually share member order. */
        if (!strcmp(an->name, b->nodes[i].name)) {
            bn = &b->nodes[i];
        } else {
            bn = shash_find(b, an->name);
            if (!bn) {
                return false;
            }
        }
        if (!json_equal(an->data, bn->data)) {
            return false;
        }
    }
    return true;
}

bool
json_equal(const struct json *a, const struct json *b)
{
    if (a == b) {
        return true;
    } else if (!a || !b || a->type != b->type) {
        return false;
    }

    switch (a->type) {
    case JSON_OBJECT:
        return equal_object(a->object, b->object);
    case JSON_ARRAY: {
        size_t i, n = array_n(a);
        struct json **ae, **be;

        if (n != array_n(b)) {
            return false;
        }
        ae = array_elems(a);
        be = array_elems(b);
        for (i = 0; i < n; i++) {
            if (!json_equal(ae[i], be[i])) {
                return false;
            }
        }
        return true;
    }
    case JSON_STRING:
    case JSON_SERIALIZED_OBJECT:
        return !strcmp(json_str__(a), json_str__(b));
    case JSON_NULL:
    case JSON_FALSE:
    case JSON_TRUE:
        return true;
    case JSON_INTEGER:
        return a->integer == b->integer;
    case JSON_REAL:
        return a->real == b->real;
    case JSON_N_TYPES:
    default:
        ovsjson_abort("json_equal: bad type");
    }
}
