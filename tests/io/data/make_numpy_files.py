#!/usr/bin/python3
# Writes the small .npy files tests/io/npy_test.cpp reads, with numpy itself, so the C++ reader
# and writer are checked against the reference implementation. Run from this directory:
#   /usr/bin/python3 make_numpy_files.py
import numpy as np

np.save("np_f32_2x3.npy", np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.5)
np.save("np_i64_4.npy", np.array([-3, 0, 7, 1 << 40], dtype=np.int64))
np.save("np_u8_scalar.npy", np.array(200, dtype=np.uint8))
np.save("np_bool_2x2.npy", np.array([[True, False], [False, True]]))
np.save("np_i8_empty.npy", np.zeros((0, 5), dtype=np.int8))
for version in [(2, 0), (3, 0)]:
    with open(f"np_f64_v{version[0]}.npy", "wb") as f:
        np.lib.format.write_array(f, np.array([1.5, -2.25, 1e300]), version=version)
# Fortran order, rejected by the reader.
np.save("np_f32_fortran.npy", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
