# Fits M (3x3) with canon ~= M * cie over the 24 patches' mean colours (inner 4x4 pixels of each 8x8 block)
import struct, sys
def pfm(path):
    f = open(path, 'rb'); assert f.readline().strip() == b'PF'
    w, h = map(int, f.readline().split()); scale = float(f.readline())
    fmt = '<' if scale < 0 else '>'
    d = struct.unpack(fmt + 'f' * (w * h * 3), f.read(w * h * 12))
    return w, h, d  # rows bottom to top
def patches(path):
    w, h, d = pfm(path); out = []
    for by in range(h // 8):
        for bx in range(w // 8):
            s = [0.0, 0.0, 0.0]
            for y in range(by * 8 + 2, by * 8 + 6):
                for x in range(bx * 8 + 2, bx * 8 + 6):
                    for c in range(3): s[c] += d[3 * (y * w + x) + c] / 16
            out.append(s)
    return out
A = patches(sys.argv[1]); B = patches(sys.argv[2])
def solve3(M, v):  # Cramer
    det = lambda m: (m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0]))
    D = det(M); r = []
    for k in range(3):
        Mk = [row[:] for row in M]
        for i in range(3): Mk[i][k] = v[i]
        r.append(det(Mk) / D)
    return r
AtA = [[sum(a[i] * a[j] for a in A) for j in range(3)] for i in range(3)]
M = []
for c in range(3):
    Atb = [sum(a[i] * b[c] for a, b in zip(A, B)) for i in range(3)]
    M.append(solve3(AtA, Atb))
for row in M: print(' '.join('%.6f' % x for x in row))
err = max(abs(sum(M[c][k] * a[k] for k in range(3)) - b[c]) / max(1e-3, b[c]) for a, b in zip(A, B) for c in range(3))
print('max relative residual %.4f' % err)
print('grey patch cie', [round(x, 4) for x in A[7]], 'canon', [round(x, 4) for x in B[7]])
