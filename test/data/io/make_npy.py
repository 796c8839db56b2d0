# Regenerates the .npy fixtures of test/unit/backend_io_test.cpp with numpy (Debian bookworm's
# python3-numpy 1.24): cd test/data/io && /usr/bin/python3 make_npy.py
import numpy as np
from numpy.lib import format as fmt

np.save('f4_2x3.npy', np.array([[1.5, -2.25, 3.0], [0.1, 1e-3, 65504.0]], dtype=np.float32))
np.save('f8_fortran_2x3.npy', np.asfortranarray(np.array([[1., 2., 3.], [4., 5., 6.]])))
np.save('i2_fortran_2x3x4.npy',
        np.asfortranarray(np.arange(24, dtype=np.int16).reshape(2, 3, 4) - 12))
np.save('i4_big_endian.npy', np.array([1, -2, 300000], dtype='>i4'))
np.save('f8_big_endian.npy', np.array([0.5, -1e300], dtype='>f8'))
np.save('b1.npy', np.array([True, False, True, True]))
np.save('u1.npy', np.array([0, 255, 7], dtype=np.uint8))
np.save('i1.npy', np.array([-128, 127, 0], dtype=np.int8))
np.save('u2.npy', np.array([[65535, 1]], dtype=np.uint16))
np.save('u4.npy', np.array([4294967295, 3], dtype=np.uint32))
np.save('u8.npy', np.array([0, 2**64 - 1], dtype=np.uint64))
np.save('i8.npy', np.array([-2**63, 2**63 - 1], dtype=np.int64))
np.save('f2_2x2.npy', np.array([[0.1, -2.0], [65504.0, 6e-8]], dtype=np.float16))
np.save('f8_scalar.npy', np.array(2.5))
np.save('f4_empty_0x3.npy', np.zeros((0, 3), dtype=np.float32))
with open('f4_v2.npy', 'wb') as f:
    fmt.write_array(f, np.array([1.0, 2.0], dtype=np.float32), version=(2, 0))
with open('i8_v3.npy', 'wb') as f:
    fmt.write_array(f, np.array([[7, 8]], dtype=np.int64), version=(3, 0))
# Unsupported dtypes.
np.save('c8_complex.npy', np.array([1 + 2j], dtype=np.complex64))
np.save('object.npy', np.array([{'a': 1}, None], dtype=object), allow_pickle=True)
np.save('U2_strings.npy', np.array(['ab', 'c']))
