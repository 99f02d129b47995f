/*
 * The walk of nardy/rules/movegen.py, compiled: the same search, step for step.
 *
 * movegen.py decides every rule's parameters (the dice, the head limit, the
 * six-block masks, which orders may be skipped) and hands them here; this
 * module walks the step orders on a fixed-size working board and answers in
 * exactly the shape and order of the pure-Python walk, which stays the
 * reference: the tests compare the two on random positions of every variant.
 * It keeps no state between calls.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define POINTS 24
#define BAR 25
#define OPPONENT_BAR 26
#define CELLS 27 /* off, points 1..24, our bar, the opponent's bar */
#define MAX_MOVES 4

typedef struct {
    uint8_t source, target, die, hit;
} step_t;

/* A node of the walk as the memo knows it: the board, the dice left, the head
 * checkers used and the Georgian guard mask (the home points hit this turn). */
typedef struct {
    int8_t cells[CELLS];
    uint8_t remaining[MAX_MOVES];
    uint8_t heads, guarded, count;
} node_key_t;

typedef struct {
    int8_t cells[CELLS];
    uint8_t length;
    step_t steps[MAX_MOVES];
} result_t;

/* An open-addressing set of fixed-size keys; `slots` holds index + 1 (0 = empty). */
typedef struct {
    uint32_t *slots;
    size_t mask;
} table_t;

typedef struct {
    /* the rules of this call */
    int hitting, head_limit, stay_rule, every_sequence, descending;
    uint32_t ban_each_step, ban_at_end;
    uint32_t route_bit[CELLS];
    /* the working board */
    int8_t cells[CELLS];
    int outside;
    /* what the walk found */
    int best;
    result_t *results;
    size_t result_count, result_capacity;
    table_t found; /* board -> result index (distinct-board mode) */
    node_key_t *seen_keys;
    size_t seen_count, seen_capacity;
    table_t seen;
    int failed;
} walk_t;

static uint64_t hash_bytes(const void *data, size_t length)
{
    const uint8_t *bytes = data;
    uint64_t hash = 1469598103934665603ULL;
    for (size_t i = 0; i < length; i++) {
        hash ^= bytes[i];
        hash *= 1099511628211ULL;
    }
    return hash ^ (hash >> 29);
}

static int table_init(table_t *table, size_t size)
{
    table->slots = calloc(size, sizeof(uint32_t));
    table->mask = size - 1;
    return table->slots != NULL;
}

static void table_clear(table_t *table)
{
    memset(table->slots, 0, (table->mask + 1) * sizeof(uint32_t));
}

/* Double a table once it is half full, rehashing `count` entries of `stride` bytes at `base`. */
static int table_grow(table_t *table, const void *base, size_t stride, size_t key_length, size_t count)
{
    if (2 * (count + 1) <= table->mask + 1)
        return 1;
    size_t size = 2 * (table->mask + 1);
    uint32_t *slots = calloc(size, sizeof(uint32_t));
    if (slots == NULL)
        return 0;
    for (size_t i = 0; i < count; i++) {
        size_t slot = hash_bytes((const uint8_t *)base + i * stride, key_length) & (size - 1);
        while (slots[slot])
            slot = (slot + 1) & (size - 1);
        slots[slot] = (uint32_t)(i + 1);
    }
    free(table->slots);
    table->slots = slots;
    table->mask = size - 1;
    return 1;
}

/* The slot holding `key`, or the empty slot where it belongs. */
static size_t table_find(const table_t *table, const void *base, size_t stride, const void *key, size_t key_length)
{
    size_t slot = hash_bytes(key, key_length) & table->mask;
    while (table->slots[slot]) {
        const uint8_t *entry = (const uint8_t *)base + (table->slots[slot] - 1) * stride;
        if (memcmp(entry, key, key_length) == 0)
            break;
        slot = (slot + 1) & table->mask;
    }
    return slot;
}

static int blocks(uint32_t occupied, uint32_t banned_ends)
{
    return (occupied & occupied << 1 & occupied << 2 & occupied << 3 & occupied << 4 & occupied << 5 & banned_ends) != 0;
}

/* True (and recorded) when this node was walked already. */
static int seen_before(walk_t *walk, const uint8_t *remaining, int count, int heads, int guarded)
{
    node_key_t key;
    memset(&key, 0, sizeof key);
    memcpy(key.cells, walk->cells, CELLS);
    memcpy(key.remaining, remaining, (size_t)count);
    key.heads = (uint8_t)heads;
    key.guarded = (uint8_t)guarded;
    key.count = (uint8_t)count;
    size_t slot = table_find(&walk->seen, walk->seen_keys, sizeof key, &key, sizeof key);
    if (walk->seen.slots[slot])
        return 1;
    if (walk->seen_count == walk->seen_capacity) {
        size_t capacity = 2 * walk->seen_capacity;
        node_key_t *keys = realloc(walk->seen_keys, capacity * sizeof key);
        if (keys == NULL) {
            walk->failed = 1;
            return 1;
        }
        walk->seen_keys = keys;
        walk->seen_capacity = capacity;
    }
    walk->seen_keys[walk->seen_count] = key;
    walk->seen.slots[slot] = (uint32_t)(++walk->seen_count);
    if (!table_grow(&walk->seen, walk->seen_keys, sizeof key, sizeof key, walk->seen_count))
        walk->failed = 1;
    return 0;
}

static result_t *new_result(walk_t *walk)
{
    if (walk->result_count == walk->result_capacity) {
        size_t capacity = 2 * walk->result_capacity;
        result_t *results = realloc(walk->results, capacity * sizeof(result_t));
        if (results == NULL) {
            walk->failed = 1;
            return NULL;
        }
        walk->results = results;
        walk->result_capacity = capacity;
    }
    return &walk->results[walk->result_count++];
}

/* movegen._preferred: whether `steps` rather than the known order represents their board. */
static int preferred(const step_t *steps, int length, const result_t *known)
{
    return length == 1 && steps[0].die > known->steps[0].die;
}

static void record(walk_t *walk, const step_t *steps, int length)
{
    if (length > walk->best) {
        walk->best = length;
        walk->result_count = 0;
        if (!walk->every_sequence)
            table_clear(&walk->found);
    }
    if (!walk->every_sequence) {
        size_t slot = table_find(&walk->found, walk->results, sizeof(result_t), walk->cells, CELLS);
        if (walk->found.slots[slot]) {
            result_t *known = &walk->results[walk->found.slots[slot] - 1];
            if (preferred(steps, length, known))
                memcpy(known->steps, steps, (size_t)length * sizeof(step_t));
            return;
        }
        walk->found.slots[slot] = (uint32_t)(walk->result_count + 1);
    }
    result_t *result = new_result(walk);
    if (result == NULL)
        return;
    memcpy(result->cells, walk->cells, CELLS);
    memcpy(result->steps, steps, (size_t)length * sizeof(step_t));
    result->length = (uint8_t)length;
    if (!walk->every_sequence
        && !table_grow(&walk->found, walk->results, sizeof(result_t), CELLS, walk->result_count))
        walk->failed = 1;
}

static int advance(walk_t *walk, const uint8_t *rest, int count, step_t *steps, int depth, uint32_t occupied,
                   int heads_used, int guarded, int source, int die);

static void visit(walk_t *walk, const uint8_t *remaining, int count, step_t *steps, int depth, uint32_t occupied,
                  int heads_used, int guarded, int highest)
{
    int8_t *cells = walk->cells;
    if (walk->failed)
        return;
    if (!walk->every_sequence && seen_before(walk, remaining, count, heads_used, guarded))
        return;
    if (depth >= walk->best && !(walk->ban_at_end && blocks(occupied, walk->ban_at_end)))
        record(walk, steps, depth);
    if (count == 0)
        return;

    int sources[POINTS + 1], source_count = 0;
    if (cells[BAR] > 0) {
        sources[source_count++] = BAR;
    } else {
        for (int point = highest < POINTS ? highest : POINTS; point > 0; point--)
            if (cells[point] > 0)
                sources[source_count++] = point;
    }
    for (int index = 0; index < count; index++) {
        int die = remaining[index];
        if (index && die == remaining[index - 1])
            continue;
        uint8_t rest[MAX_MOVES];
        memcpy(rest, remaining, (size_t)index);
        memcpy(rest + index, remaining + index + 1, (size_t)(count - index - 1));
        /* A step that would empty a guarded point waits: 002's exception lets it go only
         * when no other step can play this die. */
        int leaving[POINTS + 1], leaving_count = 0, played = 0;
        for (int s = 0; s < source_count; s++) {
            int source = sources[s];
            if ((guarded >> source) & 1 && cells[source] == 1)
                leaving[leaving_count++] = source;
            else
                played |= advance(walk, rest, count - 1, steps, depth, occupied, heads_used, guarded, source, die);
        }
        if (!played)
            for (int s = 0; s < leaving_count; s++)
                advance(walk, rest, count - 1, steps, depth, occupied, heads_used, guarded, leaving[s], die);
    }
}

/* movegen's advance: walk on from the step of `die` from `source` if it is legal; whether it was. */
static int advance(walk_t *walk, const uint8_t *rest, int count, step_t *steps, int depth, uint32_t occupied,
                   int heads_used, int guarded, int source, int die)
{
    int8_t *cells = walk->cells;
    int target = source - die;
    int hit = 0;
    if (target > 0) {
        int occupant = cells[target];
        if (occupant < (walk->hitting ? -1 : 0))
            return 0;
        hit = walk->hitting && occupant == -1;
    } else {
        if (walk->outside)
            return 0;
        if (target < 0)
            for (int point = source + 1; point <= 6; point++)
                if (cells[point] > 0)
                    return 0;
        target = 0;
    }
    int heads = heads_used;
    if (source == POINTS && walk->head_limit >= 0) {
        if (heads_used >= walk->head_limit)
            return 0;
        heads++;
    }
    cells[source]--;
    uint32_t now_occupied = occupied;
    if (!cells[source])
        now_occupied ^= walk->route_bit[source];
    if (hit) {
        cells[target] = 1;
        cells[OPPONENT_BAR]++;
        now_occupied |= walk->route_bit[target];
    } else {
        cells[target]++;
        if (cells[target] == 1)
            now_occupied |= walk->route_bit[target];
    }
    int left_outside = source >= 7 && target < 7;
    if (left_outside)
        walk->outside--;
    int legal = !(walk->ban_each_step && blocks(now_occupied, walk->ban_each_step));
    if (legal) {
        int now_guarded = walk->stay_rule && hit && target <= 6 ? guarded | 1 << target : guarded;
        steps[depth] = (step_t){(uint8_t)source, (uint8_t)target, (uint8_t)die, (uint8_t)hit};
        visit(walk, rest, count, steps, depth + 1, now_occupied, heads, now_guarded,
              walk->descending ? source : BAR);
    }
    if (left_outside)
        walk->outside++;
    if (hit) {
        cells[target] = -1;
        cells[OPPONENT_BAR]--;
    } else {
        cells[target]--;
    }
    cells[source]++;
    return legal;
}

/* The largest-die filter of movegen._walk_python, in place. */
static void filter_results(walk_t *walk, const uint8_t *moves, int move_count)
{
    if (walk->best != 1 || move_count != 2)
        return;
    int larger = moves[0] > moves[1] ? moves[0] : moves[1];
    int any = 0;
    for (size_t i = 0; i < walk->result_count; i++)
        any |= walk->results[i].steps[0].die == larger;
    if (!any)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < walk->result_count; i++)
        if (walk->results[i].steps[0].die == larger)
            walk->results[kept++] = walk->results[i];
    walk->result_count = kept;
}

enum { ANSWER_SEQUENCES = 0, ANSWER_BOARDS = 1, ANSWER_ROWS = 2, ANSWER_CODES = 3 };

#define STEP_BITS 14 /* movegen.STEP_BITS: one step packed as movegen.step_code packs it */

static PyObject *int_tuple(const int8_t *values, int count, const int *extra, int extra_count)
{
    PyObject *tuple = PyTuple_New(count + extra_count);
    if (tuple == NULL)
        return NULL;
    for (int i = 0; i < count; i++)
        PyTuple_SET_ITEM(tuple, i, PyLong_FromLong(values[i]));
    for (int i = 0; i < extra_count; i++)
        PyTuple_SET_ITEM(tuple, count + i, PyLong_FromLong(extra[i]));
    return tuple;
}

/* A sequence packed into one int as movegen.sequence_code packs it: the first step in the lowest bits. */
static PyObject *sequence_code(const result_t *result)
{
    unsigned long long code = 0;
    for (int i = 0; i < result->length; i++) {
        const step_t *step = &result->steps[i];
        unsigned long long packed = (((unsigned long long)step->source << 5 | step->target) << 3 | step->die) << 1
                                    | step->hit;
        code |= packed << (STEP_BITS * i);
    }
    return PyLong_FromUnsignedLongLong(code);
}

static PyObject *answer_of(const result_t *result, int answer, int opponent_off)
{
    if (answer == ANSWER_CODES)
        return sequence_code(result);
    if (answer == ANSWER_BOARDS)
        return int_tuple(result->cells, CELLS, NULL, 0);
    if (answer == ANSWER_ROWS) {
        /* a Position.row(): points 1..24, bar (ours, theirs), off (ours, theirs) */
        int tail[3] = {result->cells[OPPONENT_BAR], result->cells[0], opponent_off};
        return int_tuple(result->cells + 1, POINTS + 1, tail, 3);
    }
    PyObject *steps = PyTuple_New(result->length);
    if (steps == NULL)
        return NULL;
    for (int i = 0; i < result->length; i++) {
        const step_t *step = &result->steps[i];
        PyTuple_SET_ITEM(steps, i, Py_BuildValue("(iiiO)", step->source, step->target, step->die,
                                                 step->hit ? Py_True : Py_False));
    }
    return Py_BuildValue("(NN)", steps, int_tuple(result->cells, CELLS, NULL, 0));
}

static int read_ints(PyObject *sequence, int8_t *out, int count, const char *what)
{
    if (!PyTuple_Check(sequence) || PyTuple_GET_SIZE(sequence) != count) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of %d ints", what, count);
        return 0;
    }
    for (int i = 0; i < count; i++) {
        long value = PyLong_AsLong(PyTuple_GET_ITEM(sequence, i));
        if (value == -1 && PyErr_Occurred())
            return 0;
        if (value < -15 || value > 15) {
            PyErr_Format(PyExc_ValueError, "%s holds %ld, outside -15..15", what, value);
            return 0;
        }
        out[i] = (int8_t)value;
    }
    return 1;
}

PyDoc_STRVAR(walk_doc,
    "walk(board, moves, hitting, head_limit, ban_each_step, ban_at_end, stay_rule, every_sequence, descending,\n"
    "     route_bits, answer, opponent_off)\n"
    "--\n\n"
    "movegen._walk's search on a 27-int working board, with the rule parameters movegen computed.\n"
    "answer 0: (raw steps, board) per play or sequence; 1: the boards of plays with steps;\n"
    "2: their Position rows, with opponent_off as the last number; 3: the step sequences of plays with steps,\n"
    "each packed into one int (movegen.sequence_code).");

static PyObject *walk(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 12) {
        PyErr_SetString(PyExc_TypeError, "walk takes 12 arguments");
        return NULL;
    }
    walk_t walk;
    memset(&walk, 0, sizeof walk);
    int8_t moves_signed[MAX_MOVES];
    PyObject *moves_object = args[1];
    Py_ssize_t move_count = PyTuple_Check(moves_object) ? PyTuple_GET_SIZE(moves_object) : -1;
    if (move_count != 2 && move_count != 4) {
        PyErr_SetString(PyExc_TypeError, "moves must be a tuple of 2 or 4 dice");
        return NULL;
    }
    if (!read_ints(args[0], walk.cells, CELLS, "board") || !read_ints(moves_object, moves_signed, (int)move_count, "moves"))
        return NULL;
    long values[7];
    for (int i = 0; i < 7; i++) {
        values[i] = PyLong_AsLong(args[2 + i]);
        if (values[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    long answer = PyLong_AsLong(args[10]);
    long opponent_off = PyLong_AsLong(args[11]);
    if ((answer == -1 || opponent_off == -1) && PyErr_Occurred())
        return NULL;
    PyObject *route = args[9];
    if (!PyBytes_Check(route) || PyBytes_GET_SIZE(route) != CELLS) {
        PyErr_SetString(PyExc_TypeError, "route_bits must be 27 bytes");
        return NULL;
    }
    uint8_t moves[MAX_MOVES];
    for (int i = 0; i < move_count; i++) {
        if (moves_signed[i] < 1 || moves_signed[i] > 6) {
            PyErr_SetString(PyExc_ValueError, "a die is 1..6");
            return NULL;
        }
        moves[i] = (uint8_t)moves_signed[i];
    }
    for (int i = 1; i < move_count; i++)
        if (moves[i] < moves[i - 1]) {
            PyErr_SetString(PyExc_ValueError, "moves must be sorted");
            return NULL;
        }
    walk.hitting = values[0] != 0;
    walk.head_limit = (int)values[1];
    walk.ban_each_step = (uint32_t)values[2];
    walk.ban_at_end = (uint32_t)values[3];
    walk.stay_rule = values[4] != 0;
    walk.every_sequence = values[5] != 0;
    walk.descending = values[6] != 0;
    const uint8_t *route_positions = (const uint8_t *)PyBytes_AS_STRING(route);
    for (int i = 0; i < CELLS; i++)
        walk.route_bit[i] = route_positions[i] < POINTS ? 1u << route_positions[i] : 0;

    uint32_t occupied = 0;
    for (int point = 1; point <= POINTS; point++) {
        if (walk.cells[point] > 0)
            occupied |= walk.route_bit[point];
        if (point >= 7 && walk.cells[point] > 0)
            walk.outside += walk.cells[point];
    }
    if (walk.cells[BAR] > 0)
        walk.outside += walk.cells[BAR];

    walk.result_capacity = 64;
    walk.results = malloc(walk.result_capacity * sizeof(result_t));
    walk.seen_capacity = 256;
    walk.seen_keys = malloc(walk.seen_capacity * sizeof(node_key_t));
    PyObject *list = NULL;
    if (walk.results == NULL || walk.seen_keys == NULL || !table_init(&walk.found, 128) || !table_init(&walk.seen, 512)) {
        PyErr_NoMemory();
        goto done;
    }
    step_t steps[MAX_MOVES];
    visit(&walk, moves, (int)move_count, steps, 0, occupied, 0, 0, BAR);
    if (walk.failed) {
        PyErr_NoMemory();
        goto done;
    }
    filter_results(&walk, moves, (int)move_count);
    list = PyList_New(0);
    if (list == NULL)
        goto done;
    for (size_t i = 0; i < walk.result_count; i++) {
        if (answer != ANSWER_SEQUENCES && walk.results[i].length == 0)
            continue;
        PyObject *item = answer_of(&walk.results[i], (int)answer, (int)opponent_off);
        if (item == NULL || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(list);
            goto done;
        }
        Py_DECREF(item);
    }
done:
    free(walk.results);
    free(walk.seen_keys);
    free(walk.found.slots);
    free(walk.seen.slots);
    return list;
}

static PyMethodDef methods[] = {
    {"walk", (PyCFunction)(void (*)(void))walk, METH_FASTCALL, walk_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "nardy.rules._movegen",
    "The compiled walk of nardy.rules.movegen (see movegen.py, the reference).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__movegen(void)
{
    return PyModule_Create(&module_def);
}
