/* lib-json: JSON values: creation, access, copies, comparison, hashing and
 * destruction.  Our own implementation of OVS's json API. */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ovsjson/dynamic-string.h"
#include "ovsjson/uuid.h"
#include "json-private.h"
#include "shash-private.h"

/* The names json_type_to_string() gives: JSON's own, with one "number" for
 * integers and reals. */
static const char *const type_names[JSON_N_TYPES] = {
    [JSON_NULL] = "null", [JSON_FALSE] = "false", [JSON_TRUE] = "true",
    [JSON_OBJECT] = "object", [JSON_ARRAY] = "array",
    [JSON_INTEGER] = "number", [JSON_REAL] = "number",
    [JSON_STRING] = "string",
};

const char *
json_type_to_string(enum json_type type)
{
    return (unsigned int) type < JSON_N_TYPES ? type_names[type]
                                              : "<invalid>";
}

/* Scalars. */

/* JSON_TRUE follows JSON_FALSE in enum json_type. */
struct json *
json_boolean_create(bool b)
{
    return json_alloc__(JSON_FALSE + (b ? 1 : 0));
}

/* A JSON_INTEGER of 'i' or a JSON_REAL of 'r', as 'type' says. */
static struct json *
number_create(enum json_type type, long long int i, double r)
{
    struct json *json = json_alloc__(type);

    if (type == JSON_INTEGER) {
        json->integer = i;
    } else {
        json->real = r;
    }
    return json;
}

struct json *
json_integer_create(long long int integer)
{
    return number_create(JSON_INTEGER, integer, 0.0);
}

struct json *
json_real_create(double real)
{
    return number_create(JSON_REAL, 0, real);
}

struct json *
json_null_create(void)
{
    return json_alloc__(JSON_NULL);
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

/* Takes ownership of 's' (from malloc()): it becomes the dynamic storage
 * of the new string, whatever its length, and is freed with it. */
struct json *
json_string_create_nocopy(char *s)
{
    struct json *json = json_alloc__(JSON_STRING);
    json->str_ptr = s;
    return json;
}

/* A string holding 'uuid' in the 36-character form
 * "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lowercase. */
struct json *
json_string_create_uuid(const struct uuid *uuid)
{
    char *text = ojs_xmalloc(37);
    const uint32_t *w = uuid->parts;

    snprintf(text, 37, "%08"PRIx32"-%04"PRIx32"-%04"PRIx32"-%04"PRIx32
             "-%04"PRIx32"%08"PRIx32, w[0], w[1] >> 16, w[1] & 0xffff,
             w[2] >> 16, w[2] & 0xffff, w[3]);
    return json_string_create_nocopy(text);
}

struct json *
json_serialized_object_create(const struct json *src)
{
    struct json *json = json_alloc__(JSON_SERIALIZED_OBJECT);
    json->str_ptr = json_to_string(src, JSSF_SORT);
    return json;
}

/* Returns 'json' if its type is one of 'types' (a mask of TYPE_BIT()s);
 * aborts naming 'fn' otherwise.  The accessors' type check. */
#define TYPE_BIT(T) (1u << (T))
static inline const struct json *
expect(const struct json *json, unsigned int types, const char *fn)
{
    if (OVSJSON_UNLIKELY(!(TYPE_BIT(json->type) & types))) {
        ojs_abort(fn);
    }
    return json;
}

const char *
json_string(const struct json *json)
{
    return json_str__(expect(json, TYPE_BIT(JSON_STRING), "json_string"));
}

const char *
json_serialized_object(const struct json *json)
{
    return expect(json, TYPE_BIT(JSON_SERIALIZED_OBJECT),
                  "json_serialized_object")->str_ptr;
}

bool
json_boolean(const struct json *json)
{
    unsigned int bools = TYPE_BIT(JSON_TRUE) | TYPE_BIT(JSON_FALSE);
    return expect(json, bools, "json_boolean")->type == JSON_TRUE;
}

/* A real, or an integer converted to double. */
double
json_real(const struct json *json)
{
    unsigned int numbers = TYPE_BIT(JSON_REAL) | TYPE_BIT(JSON_INTEGER);
    return expect(json, numbers, "json_real")->type == JSON_INTEGER
           ? (double) json->integer : json->real;
}

int64_t
json_integer(const struct json *json)
{
    return expect(json, TYPE_BIT(JSON_INTEGER), "json_integer")->integer;
}

/* Arrays.  Like OVS 3.6: an empty array and one of more than
 * JSON_ARRAY_INLINE_LEN elements are JSON_ARRAY_DYNAMIC, the others keep
 * their elements inline and their count in 'storage_type'. */

static inline size_t
array_n(const struct json *json)
{
    return json->storage_type == JSON_ARRAY_DYNAMIC
           ? json->array.size
           : (size_t) (json->storage_type - JSON_ARRAY_DYNAMIC);
}

static inline struct json **
array_elems(const struct json *json)
{
    return json->storage_type == JSON_ARRAY_DYNAMIC
           ? json->array.elements : (struct json **) json->elements;
}

static struct json *
array_alloc(enum json_storage_type storage)
{
    struct json *json = json_alloc__(JSON_ARRAY);
    json->storage_type = storage;
    return json;
}

struct json *
json_array_create_empty(void)
{
    struct json *json = array_alloc(JSON_ARRAY_DYNAMIC);
    json->array.size = json->array.allocated = 0;
    json->array.elements = NULL;
    return json;
}

/* Takes ownership of the 'n' values in 'elements' and of the vector itself
 * (from malloc()), which becomes the array's dynamic storage, as in OVS. */
struct json *
json_array_create(struct json **elements, size_t n)
{
    struct json *json = array_alloc(JSON_ARRAY_DYNAMIC);
    json->array.elements = elements;
    json->array.size = json->array.allocated = n;
    return json;
}

struct json *
json_array_create_1(struct json *elem0)
{
    struct json *json = array_alloc(JSON_ARRAY_INLINE_1);
    json->elements[0] = elem0;
    return json;
}

struct json *
json_array_create_2(struct json *elem0, struct json *elem1)
{
    struct json *json = array_alloc(JSON_ARRAY_INLINE_2);
    json->elements[0] = elem0;
    json->elements[1] = elem1;
    return json;
}

struct json *
json_array_create_3(struct json *elem0, struct json *elem1,
                    struct json *elem2)
{
    struct json *json = array_alloc(JSON_ARRAY_INLINE_3);
    json->elements[0] = elem0;
    json->elements[1] = elem1;
    json->elements[2] = elem2;
    return json;
}

/* Appends 'element' to 'json', taking ownership.  An empty array takes its
 * first element inline; the 4th element moves the array to the heap. */
void
json_array_add(struct json *json, struct json *element)
{
    struct json_array *a = &json->array;
    size_t n;

    ovs_assert(json->type == JSON_ARRAY);
    n = array_n(json);
    if (json->storage_type != JSON_ARRAY_DYNAMIC || !n) {
        if (n < JSON_ARRAY_INLINE_LEN) {
            if (json->storage_type == JSON_ARRAY_DYNAMIC) {
                /* Emptied by json_array_pop(): drop the vector. */
                free(a->elements);
            }
            json->elements[n] = element;
            json->storage_type = JSON_ARRAY_INLINE_1 + n;
            return;
        }

        /* Three inline elements: move them to a vector of four. */
        struct json **v = ojs_xmalloc(4 * sizeof *v);
        memcpy(v, json->elements, 3 * sizeof *v);
        v[3] = element;
        json->storage_type = JSON_ARRAY_DYNAMIC;
        a->elements = v;
        a->size = a->allocated = 4;
        return;
    }
    if (a->size == a->allocated) {
        a->allocated = a->allocated ? 2 * a->allocated : 4;
        a->elements = ojs_xrealloc(a->elements,
                                   a->allocated * sizeof *a->elements);
    }
    a->elements[a->size++] = element;
}

/* Frees the unused capacity of a dynamic array.  (Like OVS, an array never
 * moves back inline.) */
void
json_array_trim(struct json *json)
{
    struct json_array *a = &json->array;

    ovs_assert(json->type == JSON_ARRAY);
    if (json->storage_type == JSON_ARRAY_DYNAMIC && a->size < a->allocated) {
        if (a->size) {
            a->elements = ojs_xrealloc(a->elements,
                                       a->size * sizeof *a->elements);
        } else {
            free(a->elements);
            a->elements = NULL;
        }
        a->allocated = a->size;
    }
}

size_t
json_array_size(const struct json *json)
{
    return array_n(expect(json, TYPE_BIT(JSON_ARRAY), "json_array_size"));
}

const struct json *
json_array_at(const struct json *json, size_t index)
{
    size_t n = json_array_size(json);
    return index < n ? array_elems(json)[index] : NULL;
}

/* Stores 'element' at 'index'.  The element it replaces is not destroyed:
 * its owner is the caller, as in OVS 3.6. */
void
json_array_set(struct json *json, size_t index, struct json *element)
{
    ovs_assert(json_array_size(json) > index);
    array_elems(json)[index] = element;
}

/* Removes the last element of 'json' and returns it (the caller owns it),
 * or returns NULL if 'json' is empty.  The last inline element leaves an
 * empty dynamic array behind, as in OVS. */
struct json *
json_array_pop(struct json *json)
{
    size_t n = json_array_size(json);
    struct json *last;

    if (!n) {
        return NULL;
    }
    last = array_elems(json)[n - 1];
    if (json->storage_type == JSON_ARRAY_DYNAMIC) {
        json->array.size--;
    } else if (n > 1) {
        json->storage_type--;
    } else {
        json->storage_type = JSON_ARRAY_DYNAMIC;
        json->array.size = json->array.allocated = 0;
        json->array.elements = NULL;
    }
    return last;
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
ojs_json_object_create_sized(size_t n_nodes, size_t names_len, char **namesp)
{
    size_t size = sizeof(struct json) + sizeof(struct shash)
                  + n_nodes * sizeof(struct shash_node) + names_len;
    struct json *json = ojs_xmalloc(size);
    struct shash *sh = (struct shash *) (json + 1);

    json->type = JSON_OBJECT;
    json->storage_type = JSON_STRING_DYNAMIC;
    json->alloc__ = OJS_ALLOC_SEPARATE;
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
    return ojs_json_object_create_sized(0, 0, NULL);
}

struct shash *
json_object(const struct json *json)
{
    return expect(json, TYPE_BIT(JSON_OBJECT), "json_object")->object;
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
    struct ds value = DS_EMPTY_INITIALIZER;
    va_list args;

    va_start(args, format);
    ds_put_format_valist(&value, format, args);
    va_end(args);
    json_object_put(json, name,
                    json_string_create_nocopy(ds_steal_cstr(&value)));
}

void
json_object_put_uuid(struct json *json, const char *name,
                     const struct uuid *uuid)
{
    json_object_put(json, name, json_string_create_uuid(uuid));
}

/* True if 'json' is an object without members; false for anything else,
 * null included. */
bool
json_object_is_empty(struct json *json)
{
    return json && json->type == JSON_OBJECT && !json->object->n;
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
    size_t i = ojs_shash_find_idx(sh, name, strlen(name));
    struct json *value;

    if (i == SIZE_MAX) {
        return false;
    }
    value = sh->nodes[i].data;
    shash_delete(sh, &sh->nodes[i]);
    json_destroy(value);
    return true;
}

/* Destruction. */

void
json_destroy__(struct json *json, bool yield)
{
    enum json_type type = json->type;

    (void) yield;               /* OVS's cooperative yielding: not here. */
    if (type == JSON_OBJECT) {
        struct shash *members = json->object;

        for (size_t k = 0; k < members->n; k++) {
            json_destroy(members->nodes[k].data);
        }
        shash_destroy(members);   /* Its block is the value's own. */
    } else if (type == JSON_ARRAY) {
        struct json **v = array_elems(json);

        for (size_t k = array_n(json); k-- > 0; ) {
            json_destroy(v[k]);
        }
        if (json->storage_type == JSON_ARRAY_DYNAMIC) {
            free(v);
        }
    } else if (type == JSON_STRING || type == JSON_SERIALIZED_OBJECT) {
        if (json->storage_type == JSON_STRING_DYNAMIC) {
            json_free_str__(json);
        }
    } else if (type > JSON_REAL) {
        ojs_abort("json_destroy: bad type");
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
    json = ojs_json_object_create_sized(src->n, names_len, &names);
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
    ojs_shash_fixup(sh);
    return json;
}

/* Like OVS: up to 3 elements inline, none or more on the heap. */
static struct json *
deep_clone_array(const struct json *src)
{
    size_t i, n = array_n(src);
    struct json **from = array_elems(src);
    struct json *json;

    if (n && n <= JSON_ARRAY_INLINE_LEN) {
        json = array_alloc(JSON_ARRAY_INLINE_1 + (n - 1));
        for (i = 0; i < n; i++) {
            json->elements[i] = json_deep_clone(from[i]);
        }
    } else {
        json = json_array_create_empty();
        json->array.elements = n ? ojs_xmalloc(n * sizeof *from) : NULL;
        json->array.size = json->array.allocated = n;
        for (i = 0; i < n; i++) {
            json->array.elements[i] = json_deep_clone(from[i]);
        }
    }
    return json;
}

struct json *
json_deep_clone(const struct json *json)
{
    struct json *copy;

    if (json->type == JSON_OBJECT) {
        return deep_clone_object(json->object);
    } else if (json->type == JSON_ARRAY) {
        return deep_clone_array(json);
    } else if (json->type == JSON_STRING) {
        return json_string_create_len__(json_str__(json),
                                        strlen(json_str__(json)));
    } else if (json->type == JSON_SERIALIZED_OBJECT) {
        copy = json_alloc__(JSON_SERIALIZED_OBJECT);
        copy->str_ptr = ojs_xstrdup(json->str_ptr);
        return copy;
    } else if (json->type > JSON_REAL) {
        ojs_abort("json_deep_clone: bad type");
    }

    /* null, false, true, integers and reals: the payload is a plain
     * value, so a copy of the whole struct with one reference does. */
    copy = json_alloc__(json->type);
    *copy = *json;
    copy->count = 1;
    return copy;
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

        n = ojs_shash_sorted_nodes(json->object, buf, 16, &nodes);
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
        return ojs_hash_3words(w[0], w[1], basis);
    }
    case JSON_N_TYPES:
    default:
        ojs_abort("json_hash: bad type");
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

/* Same length, and equal element by element. */
static bool
equal_array(const struct json *a, const struct json *b)
{
    size_t n = array_n(a), k = 0;
    struct json **x = array_elems(a), **y = array_elems(b);

    if (n == array_n(b)) {
        while (k < n && json_equal(x[k], y[k])) {
            k++;
        }
    }
    return n == array_n(b) && k == n;
}

bool
json_equal(const struct json *a, const struct json *b)
{
    if (!a || !b || a == b) {
        return a == b;          /* Null equals only null. */
    } else if (a->type != b->type) {
        return false;
    } else if (a->type <= JSON_TRUE) {
        return true;            /* The type is the whole value. */
    } else if (a->type == JSON_STRING
               || a->type == JSON_SERIALIZED_OBJECT) {
        return !strcmp(json_str__(a), json_str__(b));
    } else if (a->type == JSON_OBJECT) {
        return equal_object(a->object, b->object);
    } else if (a->type == JSON_ARRAY) {
        return equal_array(a, b);
    } else if (a->type == JSON_INTEGER) {
        return a->integer == b->integer;
    } else if (a->type == JSON_REAL) {
        return a->real == b->real;
    }
    ojs_abort("json_equal: bad type");
}
