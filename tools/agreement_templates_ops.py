"""Templates of tools/api_agreement.py for the op families added for MindSpore 2.10's full
API (FFT, segment, alias, sequence, matrix, box, autodiff, scalar helpers, samplers,
factorizations, layouts, nn compositions), in the form of agreement_templates.py's tables:
`register(_add)` adds them there."""

BLOCKS = []     # (module prefix, {name: [call, ...]})

BLOCKS.append(("ops", {
    "fft": ["ops.fft(x)", "ops.fft(x, 6, 0, 'ortho')", "ops.fft(i)", "ops.fft(h)", "ops.fft(d)",
            "ops.fft(ops.fft(x), 3, -1, 'forward')"],
    "ifft": ["ops.ifft(x)", "ops.ifft(ops.fft(x), 5, norm='ortho')"],
    "rfft": ["ops.rfft(x)", "ops.rfft(x, 7, 0)", "ops.rfft(i, norm='forward')"],
    "irfft": ["ops.irfft(ops.rfft(x))", "ops.irfft(ops.fft(x), 5, 1, 'ortho')", "ops.irfft(x)"],
    "hfft": ["ops.hfft(ops.fft(x))", "ops.hfft(x, 6)", "ops.hfft(ops.fft(x), 3, 0, 'forward')"],
    "ihfft": ["ops.ihfft(x)", "ops.ihfft(x, 5, 0, 'ortho')"],
    "fft2": ["ops.fft2(x)", "ops.fft2(x3, (3, 5), (0, 2))"],
    "ifft2": ["ops.ifft2(x, norm='ortho')"],
    "fftn": ["ops.fftn(x3)", "ops.fftn(x3, (4,))", "ops.fftn(x3, dim=(0,))"],
    "ifftn": ["ops.ifftn(x3, (2, 2, 2), norm='forward')"],
    "rfft2": ["ops.rfft2(x)", "ops.rfft2(x3, (2, 6))"], "rfftn": ["ops.rfftn(x3)"],
    "irfft2": ["ops.irfft2(x)", "ops.irfft2(ops.rfft2(x), (3, 4))"],
    "irfftn": ["ops.irfftn(ops.rfftn(x3), (2, 3, 4))"],
    "hfft2": ["ops.hfft2(x)"], "hfftn": ["ops.hfftn(ops.fftn(x3))"],
    "ihfft2": ["ops.ihfft2(x)"], "ihfftn": ["ops.ihfftn(x3, norm='ortho')"],
    "fftshift": ["ops.fftshift(x)", "ops.fftshift(x, 1)", "ops.fftshift(i, (0,))"],
    "ifftshift": ["ops.ifftshift(x)", "ops.ifftshift(x3, (0, 2))"],
    "fftfreq": ["ops.fftfreq(5)", "ops.fftfreq(4, 0.5, ms.float64)"],
    "rfftfreq": ["ops.rfftfreq(6, 2.0)"],
    "stft": ["ops.stft(ops.reshape(x, (12,)), 4, return_complex=True)",
             "ops.stft(ops.reshape(x, (2, 6)), 4, 2, normalized=True)",
             "ops.stft(ops.reshape(x, (12,)), 4, center=False, onesided=False, "
             "return_complex=True)"],
}))

BLOCKS.append(("ops", {
    "unsorted_segment_sum": ["ops.unsorted_segment_sum(x, seg, 2)",
                             "ops.unsorted_segment_sum(x, seg, 4)"],
    "unsorted_segment_max": ["ops.unsorted_segment_max(x, seg, 3)",
                             "ops.unsorted_segment_max(i, seg, 2)"],
    "unsorted_segment_min": ["ops.unsorted_segment_min(x, seg, 3)",
                             "ops.unsorted_segment_min(d, seg, 2)"],
    "unsorted_segment_prod": ["ops.unsorted_segment_prod(x, seg, 3)",
                              "ops.unsorted_segment_prod(i, seg, 2)"],
    "sparse_segment_mean": ["ops.sparse_segment_mean(x, k1, ops.sort(k1)[0])"],
    "eq": ["ops.eq(x, y)", "ops.eq(i, 2)"], "expand_as": ["ops.expand_as(v, x)"],
    "view_as": ["ops.view_as(x, ops.ones((4, 3)))"], "type_as": ["ops.type_as(i, x)"],
    "identity": ["ops.identity(x)"], "deepcopy": ["ops.deepcopy(x)"],
    "top_k": ["ops.top_k(x, 2)", "ops.top_k(i, 3, False)"],
    "tensor_muls": ["ops.tensor_muls(x, 2.5)"], "pows": ["ops.pows(p, 2.0)"],
    "float_power_ext": ["ops.float_power_ext(p, 2)"], "isnan_ext": ["ops.isnan_ext(x)"],
    "diff_ext": ["ops.diff_ext(x)", "ops.diff_ext(x, 2, 0)"],
    "fast_gelu": ["ops.fast_gelu(x)", "ops.fast_gelu(h)"], "reshape_": ["ops.reshape_(x, (4, 3))"],
    "depend": ["ops.depend(x, y)"], "eps": ["ops.eps(x)", "ops.eps(d)", "ops.eps(h)"],
    "is_floating_point": ["ops.is_floating_point(x)", "ops.is_floating_point(i)"],
    "is_tensor": ["ops.is_tensor(x)", "ops.is_tensor(1)"],
    "is_nonzero": ["ops.is_nonzero(s)", "ops.is_nonzero(x)"],
    "rank": ["ops.rank(x3)"], "shape_": ["ops.shape_(x3)"],
    "trapz": ["ops.trapz(x)", "ops.trapz(x, dx=0.5, dim=0)", "ops.trapz(x, v)", "ops.trapz(i)"],
    "vecdot": ["ops.vecdot(x, y)", "ops.vecdot(x, y, axis=0)", "ops.vecdot(i, i)"],
    "batch_dot": ["ops.batch_dot(x, y)", "ops.batch_dot(bb1, bb2)", "ops.batch_dot(x3, v3)",
                  "ops.batch_dot(x3, x3, (1, 1))"],
    "dist": ["ops.dist(x, y)", "ops.dist(x, y, 1)", "ops.dist(x, y, 0)", "ops.dist(x, y, 3)"],
    "pdist": ["ops.pdist(x)", "ops.pdist(x, 1.0)", "ops.pdist(x, 3.0)"],
    "matrix_determinant": ["ops.matrix_determinant(m)", "ops.matrix_determinant(mb)"],
    "matrix_diag": ["ops.matrix_diag(v)", "ops.matrix_diag(v, k=1)",
                    "ops.matrix_diag(x, k=-1, padding_value=9)"],
    "matrix_diag_part": ["ops.matrix_diag_part(x, Tensor(np.array(1, np.int32)), "
                         "Tensor(np.array(0.0, np.float32)))"],
    "matrix_set_diag": ["ops.matrix_set_diag(x, r)", "ops.matrix_set_diag(x, r, 1)",
                        "ops.matrix_set_diag(x, r[:2], -1)"],
    "matrix_solve": ["ops.matrix_solve(m, m34.T)", "ops.matrix_solve(m, m34.T, True)"],
    "cond": ["ops.cond(m)", "ops.cond(m, 1)", "ops.cond(m, 'fro')", "ops.cond(m, -2)"],
    "sequence_mask": ["ops.sequence_mask(pos)", "ops.sequence_mask(pos, 5)"],
    "repeat_elements": ["ops.repeat_elements(x, 2)", "ops.repeat_elements(x, 3, 1)"],
    "reverse_sequence": ["ops.reverse_sequence(x, k1, 1)",
                         "ops.reverse_sequence(x, Tensor(np.array([1, 3, 2, 0])), 0, 1)"],
    "mirror_pad": ["ops.mirror_pad(x, Tensor(np.array([[1, 1], [2, 1]])), 'REFLECT')",
                   "ops.mirror_pad(x, Tensor(np.array([[1, 2], [0, 3]])), 'SYMMETRIC')"],
    "padding": ["ops.padding(ops.reshape(v, (4, 1)))", "ops.padding(ops.reshape(v, (4, 1)), 3)"],
    "unique_with_pad": ["ops.unique_with_pad(dup, 0)", "ops.unique_with_pad(runs, -1)"],
    "population_count": ["ops.population_count(i)", "ops.population_count(i32)"],
    "intopk": ["ops.intopk(x, lab.astype(ms.int32), 2)"],
    "iou": ["ops.iou(boxes, boxes[:2])", "ops.iou(boxes, boxes[1:], 'iof')"],
    "check_valid": ["ops.check_valid(boxes, Tensor(np.array([6, 8, 1], np.float32)))"],
    "bounding_box_encode": ["ops.bounding_box_encode(boxes, boxes + 1, (0.1, 0.0, 0.2, 0.0), "
                            "(1.0, 2.0, 1.0, 0.5))"],
    "bounding_box_decode": ["ops.bounding_box_decode(boxes, x[:, :4] / 4, (6, 8))",
                            "ops.bounding_box_decode(boxes, x[:, :4], (6, 8), (0.1, 0.0, 0.2, "
                            "0.0), (1.0, 2.0, 1.0, 0.5), 0.1)"],
    "lrn": ["ops.lrn(img)", "ops.lrn(img, 1, 2.0, 0.5, 0.75)"],
    "vjp": ["ops.vjp(ops.square, x)[1](y)", "ops.vjp(ops.mul, x, y)[1](z)"],
    "jvp": ["ops.jvp(ops.square, x, y)", "ops.jvp(ops.mul, (x, y), (z, x))"],
    "jacrev": ["ops.jacrev(ops.square)(v)", "ops.jacrev(ops.mul, (0, 1))(v, w)"],
    "jacfwd": ["ops.jacfwd(ops.square)(v)", "ops.jacfwd(ops.mul, 1)(v, w)"],
    "scalar_add": ["ops.scalar_add(2, 3.5)"], "scalar_div": ["ops.scalar_div(7, 2)"],
    "scalar_cast": ["ops.scalar_cast(2.7, ms.int64)", "ops.scalar_cast(2, ms.float64)"],
    "scalar_to_tensor": ["ops.scalar_to_tensor(2.5)", "ops.scalar_to_tensor(2, ms.int32)"],
    "tuple_to_array": ["ops.tuple_to_array((1, 2, 3))", "ops.tuple_to_array((1.5, 2))"],
    "tuple_setitem": ["ops.tuple_setitem((1, 2, 3), 1, 9)"],
    "tuple_div": ["ops.tuple_div((6, 9), (2, 3))"], "make_range": ["ops.make_range(1, 7, 2)"],
    "shape_mul": ["ops.shape_mul((2, 3, 4))"],
    "reduced_shape": ["ops.reduced_shape((2, 3, 4), (1,))"],
    "tensor_range": ["ops.tensor_range(0, 5, 1)"],
    "broadcast_gradient_args": ["ops.broadcast_gradient_args((2, 3), (3,))"],
    "dyn_shape": ["ops.dyn_shape(x)"], "hyper_add": ["ops.hyper_add((1, 2), (3, 4))"],
    "mixed_precision_cast": ["ops.mixed_precision_cast(ms.float16, x)"],
}))

BLOCKS.append(("ops", {
    "random_gamma": ["ops.random_gamma(Tensor(np.array([3, 2], np.int32)), vp, seed=1)",
                     "ops.random_gamma(Tensor(np.array([3], np.int64)), d[:1, :2])"],
    "random_poisson": ["ops.random_poisson(Tensor(np.array([3, 2], np.int32)), vp, seed=1)",
                       "ops.random_poisson(Tensor(np.array([3], np.int32)), vp, "
                       "dtype=ms.int32)"],
    "random_categorical": ["ops.random_categorical(ops.log(prob), 4, 1)",
                           "ops.random_categorical(ops.log(prob), 3, 1, ms.int32)"],
    "multinomial_with_replacement": ["ops.multinomial_with_replacement(prob, Tensor(1), "
                                     "Tensor(0), 3, True)"],
    "choice_with_mask": ["ops.choice_with_mask(b, 3, 1)", "ops.choice_with_mask(b, 20)"],
    "uniform_candidate_sampler": ["ops.uniform_candidate_sampler(ops.reshape(lab, (3, 1)), 1, "
                                  "3, True, 5, 1)"],
    "log_uniform_candidate_sampler": ["ops.log_uniform_candidate_sampler(ops.reshape(lab, "
                                      "(3, 1)), 1, 3, True, 5, 1)"],
    "gamma": ["ops.gamma((3, 4), x.abs() + 0.5, Tensor(np.array([2.0], np.float32)), seed=2)"],
    "poisson": ["ops.poisson((3, 4), vp, seed=1)"],
    "geqrf": ["ops.geqrf(m34)", "ops.geqrf(m34.T)", "ops.geqrf(mb)"],
    "orgqr": ["ops.orgqr(*ops.geqrf(m34.T))"],
    "ormqr": ["ops.ormqr(*ops.geqrf(m), m34.T)"],
    "eig": ["ops.eig(m)", "ops.eig(m3.astype(ms.float64))"], "eigvals": ["ops.eigvals(m)"],
    "lu_unpack": ["ops.lu_unpack(m3, Tensor(np.array([2, 3, 3], np.int32)))"],
    "lu_solve": ["ops.lu_solve(m34[:, :2], m3, Tensor(np.array([2, 3, 3], np.int32)))"],
    "space_to_batch_nd": ["ops.space_to_batch_nd(img, 2, [[0, 0], [0, 0]])",
                          "ops.space_to_batch_nd(img, (2, 3), [[1, 1], [0, 0]])"],
    "batch_to_space_nd": ["ops.batch_to_space_nd(img, (2, 1), [[1, 1], [0, 0]])"],
    "upsample": ["ops.upsample(img, size=(8, 9))", "ops.upsample(img, (4, 4), mode='bilinear')"],
    "multilabel_margin_loss": ["ops.multilabel_margin_loss(x, ops.cast(ops.argsort(x), "
                               "ms.int32))"],
}))

BLOCKS.append(("ops", {
    "bidense": ["ops.bidense(x, y, ops.ones((5, 4, 4)))", "ops.bidense(x, y, z[:, :4].reshape("
                "(3, 4, 1)).broadcast_to((3, 4, 4)), r)"],
    "col2im": ["ops.col2im(ops.reshape(x, (1, 3, 4, 1)).broadcast_to((1, 3, 4, 9)), "
               "Tensor(np.array([4, 4], np.int32)), 2, 1, 0, 1)"],
    "adaptive_max_pool3d": ["ops.adaptive_max_pool3d(vol, (1, 2, 2))",
                            "ops.adaptive_max_pool3d(vol, (2, 3, 3), True)"],
    "conv3d_transpose": ["ops.conv3d_transpose(vol, w5)",
                         "ops.conv3d_transpose(vol, w5, stride=2)"],
    "crop_and_resize": ["ops.crop_and_resize(img.transpose(0, 2, 3, 1), Tensor(np.array([[0, 0, "
                        "1, 1], [0.2, 0.1, 0.8, 0.9]], np.float32)), Tensor(np.array([0, 1], "
                        "np.int32)), (3, 4))",
                        "ops.crop_and_resize(img.transpose(0, 2, 3, 1), Tensor(np.array([[-0.2, "
                        "0.1, 0.8, 1.2]], np.float32)), Tensor(np.array([1], np.int32)), (4, 3), "
                        "'nearest', -1.0)"],
    "ctc_greedy_decoder": ["ops.ctc_greedy_decoder(x3.transpose(1, 0, 2), "
                           "Tensor(np.array([3, 2], np.int32)))",
                           "ops.ctc_greedy_decoder(x3.transpose(1, 0, 2), "
                           "Tensor(np.array([3, 3], np.int32)), False)"],
    "augassign_add": ["ops.augassign_add(x, y)"], "augassign_mod": ["ops.augassign_mod(7, 3)"],
    "move_to": ["ops.move_to(x, 'CPU')"],
}))


def register(add):
    for prefix, table in BLOCKS:
        add(prefix, table)
