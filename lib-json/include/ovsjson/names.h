/* lib-json: symbol names and visibility of the public API.
 *
 * The source-level API has OVS's names (json_*, shash_*, ds_*).  In the
 * library every public function is linked as "ovsjson_" followed by that
 * name, so that lib-json and OVS's libopenvswitch, which define the same
 * names with other layouts, can be linked into one program: each
 * translation unit calls the library whose headers it included.  (One
 * translation unit cannot include both libraries' headers: the types have
 * the same names.)
 *
 * Generated from the declarations of json.h, shash.h and dynamic-string.h;
 * tests/t-lib-json.sh checks that the list and the exported symbols match. */

#ifndef OVSJSON_NAMES_H
#define OVSJSON_NAMES_H 1

/* Marks the public API; everything else in the library is hidden. */
#ifndef OVSJSON_API
#define OVSJSON_API __attribute__((visibility("default")))
#endif

#define ds_clear ovsjson_ds_clear
#define ds_cstr ovsjson_ds_cstr
#define ds_destroy ovsjson_ds_destroy
#define ds_init ovsjson_ds_init
#define ds_put_buffer ovsjson_ds_put_buffer
#define ds_put_char_multiple ovsjson_ds_put_char_multiple
#define ds_put_cstr ovsjson_ds_put_cstr
#define ds_put_format ovsjson_ds_put_format
#define ds_put_format_valist ovsjson_ds_put_format_valist
#define ds_put_uninit ovsjson_ds_put_uninit
#define ds_put_utf8 ovsjson_ds_put_utf8
#define ds_reserve ovsjson_ds_reserve
#define ds_steal_cstr ovsjson_ds_steal_cstr
#define json_array_add ovsjson_json_array_add
#define json_array_at ovsjson_json_array_at
#define json_array_contains_string ovsjson_json_array_contains_string
#define json_array_create ovsjson_json_array_create
#define json_array_create_1 ovsjson_json_array_create_1
#define json_array_create_2 ovsjson_json_array_create_2
#define json_array_create_3 ovsjson_json_array_create_3
#define json_array_create_empty ovsjson_json_array_create_empty
#define json_array_pop ovsjson_json_array_pop
#define json_array_set ovsjson_json_array_set
#define json_array_size ovsjson_json_array_size
#define json_array_trim ovsjson_json_array_trim
#define json_boolean ovsjson_json_boolean
#define json_boolean_create ovsjson_json_boolean_create
#define json_deep_clone ovsjson_json_deep_clone
#define json_destroy__ ovsjson_json_destroy__
#define json_equal ovsjson_json_equal
#define json_from_buffer ovsjson_json_from_buffer
#define json_from_file ovsjson_json_from_file
#define json_from_serialized_object ovsjson_json_from_serialized_object
#define json_from_stream ovsjson_json_from_stream
#define json_from_string ovsjson_json_from_string
#define json_hash ovsjson_json_hash
#define json_integer ovsjson_json_integer
#define json_integer_create ovsjson_json_integer_create
#define json_null_create ovsjson_json_null_create
#define json_nullable_clone ovsjson_json_nullable_clone
#define json_object ovsjson_json_object
#define json_object_create ovsjson_json_object_create
#define json_object_delete ovsjson_json_object_delete
#define json_object_get ovsjson_json_object_get
#define json_object_is_empty ovsjson_json_object_is_empty
#define json_object_put ovsjson_json_object_put
#define json_object_put_format ovsjson_json_object_put_format
#define json_object_put_nocopy ovsjson_json_object_put_nocopy
#define json_object_put_string ovsjson_json_object_put_string
#define json_object_put_uuid ovsjson_json_object_put_uuid
#define json_parser_abort ovsjson_json_parser_abort
#define json_parser_create ovsjson_json_parser_create
#define json_parser_feed ovsjson_json_parser_feed
#define json_parser_finish ovsjson_json_parser_finish
#define json_parser_is_done ovsjson_json_parser_is_done
#define json_parser_set_member_cb ovsjson_json_parser_set_member_cb
#define json_parser_set_text_member ovsjson_json_parser_set_text_member
#define json_parser_set_text_member_depth \
    ovsjson_json_parser_set_text_member_depth
#define json_real ovsjson_json_real
#define json_real_create ovsjson_json_real_create
#define json_serialized_object ovsjson_json_serialized_object
#define json_serialized_object_create ovsjson_json_serialized_object_create
#define json_string ovsjson_json_string
#define json_string_create ovsjson_json_string_create
#define json_string_create_len ovsjson_json_string_create_len
#define json_string_create_nocopy ovsjson_json_string_create_nocopy
#define json_string_create_uuid ovsjson_json_string_create_uuid
#define json_string_escape ovsjson_json_string_escape
#define json_string_unescape ovsjson_json_string_unescape
#define json_to_ds ovsjson_json_to_ds
#define json_to_string ovsjson_json_to_string
#define json_type_to_string ovsjson_json_type_to_string
#define shash_add ovsjson_shash_add
#define shash_add_assert ovsjson_shash_add_assert
#define shash_add_nocopy ovsjson_shash_add_nocopy
#define shash_add_once ovsjson_shash_add_once
#define shash_clear ovsjson_shash_clear
#define shash_count ovsjson_shash_count
#define shash_delete ovsjson_shash_delete
#define shash_destroy ovsjson_shash_destroy
#define shash_find ovsjson_shash_find
#define shash_find_and_delete ovsjson_shash_find_and_delete
#define shash_find_and_delete_assert ovsjson_shash_find_and_delete_assert
#define shash_find_data ovsjson_shash_find_data
#define shash_init ovsjson_shash_init
#define shash_is_empty ovsjson_shash_is_empty
#define shash_replace ovsjson_shash_replace
#define shash_replace_nocopy ovsjson_shash_replace_nocopy
#define shash_sort ovsjson_shash_sort

#endif /* ovsjson/names.h */
