// The numpy C API for the binding files: one API table (imported in module.cc) shared by all.
#pragma once

#include <Python.h>

#define PY_ARRAY_UNIQUE_SYMBOL MINDLITE_ARRAY_API
#ifndef MINDLITE_IMPORT_ARRAY_HERE
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>
