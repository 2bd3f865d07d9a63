/* The array-leaf test of a call guard (signature.py) in one C call.

   leaves_ok(spec, x0, x1, ...) answers
       all(type(x) is ndarray and x.shape == shape_i and x.dtype is dtype_i)
   for spec = (ndarray, (dtype_0, dtype_1, ...), packed shapes), the packed
   shapes being the bytes of (ndim_0, dims_0..., ndim_1, dims_1..., ...) as
   native Py_ssize_t (struct format "n").  In Python the test costs ~60 ns a
   leaf, mostly building the tuple `x.shape`; here it is two pointer compares
   and a memcmp.  The leaves come as the call's own arguments (METH_FASTCALL),
   so no tuple is built for them either.

   The fields are read through a mirror of the start of numpy's public array
   struct (PyArrayObject_fields in numpy/ndarraytypes.h, unchanged from numpy
   1.7 through 2.x and part of its stable ABI), so the build needs only
   Python's headers.  Fields are read only of an object whose type is exactly
   the ndarray type the spec names.  `layout(ndarray, x)` returns what this
   mirror reads, without following a pointer, so that the loader
   (leaf_check.py) can compare it with numpy's own answers before trusting it.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    char *data;
    int nd;
    intptr_t *dimensions;  /* npy_intp: intptr_t */
    intptr_t *strides;
    PyObject *base;
    PyObject *descr;  /* the dtype object, what `x.dtype` returns */
} ArrayStart;

static PyObject *
bad_spec(void)
{
    PyErr_SetString(PyExc_TypeError,
                    "leaves_ok(spec, *leaves): spec must be (ndarray type, tuple of one "
                    "dtype per leaf, bytes of packed (ndim, dims...) per leaf)");
    return NULL;
}

static PyObject *
leaves_ok(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_BUILD_ASSERT(sizeof(intptr_t) == sizeof(Py_ssize_t));
    if (nargs < 1 || !PyTuple_CheckExact(args[0]) || PyTuple_GET_SIZE(args[0]) != 3) {
        return bad_spec();
    }
    PyObject *ndarray = PyTuple_GET_ITEM(args[0], 0);
    PyObject *dtypes = PyTuple_GET_ITEM(args[0], 1);
    PyObject *shapes = PyTuple_GET_ITEM(args[0], 2);
    if (!PyType_Check(ndarray) || !PyTuple_CheckExact(dtypes) || !PyBytes_CheckExact(shapes)
            || PyTuple_GET_SIZE(dtypes) != nargs - 1) {
        return bad_spec();
    }
    const char *packed = PyBytes_AS_STRING(shapes);
    const Py_ssize_t word = sizeof(Py_ssize_t);
    const Py_ssize_t size = PyBytes_GET_SIZE(shapes);
    Py_ssize_t at = 0;  /* byte offset of the next leaf's ndim in `packed` */
    for (Py_ssize_t i = 1; i < nargs; i++) {
        PyObject *x = args[i];
        if (Py_TYPE(x) != (PyTypeObject *)ndarray) {
            Py_RETURN_FALSE;  /* (and nothing of x is read) */
        }
        Py_ssize_t ndim;
        if (at + word > size) {
            return bad_spec();
        }
        memcpy(&ndim, packed + at, word);  /* (bytes carry no alignment promise) */
        at += word;
        if (ndim < 0 || ndim > (size - at) / word) {
            return bad_spec();
        }
        const ArrayStart *array = (const ArrayStart *)x;
        if (array->descr != PyTuple_GET_ITEM(dtypes, i - 1) || array->nd != ndim
                || (ndim && memcmp(array->dimensions, packed + at, ndim * word) != 0)) {
            Py_RETURN_FALSE;
        }
        at += ndim * word;
    }
    if (at != size) {
        return bad_spec();
    }
    Py_RETURN_TRUE;
}

static PyObject *
layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyType_Check(args[0]) || Py_TYPE(args[1]) != (PyTypeObject *)args[0]) {
        PyErr_SetString(PyExc_TypeError, "layout(ndarray, x): x must be exactly an ndarray");
        return NULL;
    }
    const ArrayStart *array = (const ArrayStart *)args[1];
    return Py_BuildValue("(KiK)", (unsigned long long)(uintptr_t)array->data, array->nd,
                         (unsigned long long)(uintptr_t)array->descr);
}

static PyMethodDef methods[] = {
    {"leaves_ok", (PyCFunction)(void (*)(void))leaves_ok, METH_FASTCALL,
     "leaves_ok(spec, *leaves): True when every leaf is exactly an ndarray with the "
     "spec's shape and (the very same) dtype object."},
    {"layout", (PyCFunction)(void (*)(void))layout, METH_FASTCALL,
     "layout(ndarray, x): (data address, ndim, id of the dtype) as read by leaves_ok."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_leafcheck",
    "The array-leaf test of call guards in C (see leaf_check.py).", -1, methods,
};

PyMODINIT_FUNC
PyInit__leafcheck(void)
{
    return PyModule_Create(&module);
}
