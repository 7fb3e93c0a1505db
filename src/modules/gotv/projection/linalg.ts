/**
 * The little dense linear algebra the curve model needs: symmetric positive-definite systems of a
 * few dozen unknowns, stored row-major in a Float64Array (n × n).
 */

export class SymmetricMatrix {
  readonly values: Float64Array;
  constructor(readonly size: number) {
    this.values = new Float64Array(size * size);
  }

  get(row: number, column: number): number {
    return this.values[row * this.size + column]!;
  }

  add(row: number, column: number, value: number): void {
    this.values[row * this.size + column]! += value;
  }

  copy(): SymmetricMatrix {
    const copy = new SymmetricMatrix(this.size);
    copy.values.set(this.values);
    return copy;
  }
}

/**
 * The lower-triangular Cholesky factor L (A = L Lᵀ). A matrix that is not numerically positive
 * definite gets a growing ridge on its diagonal, so a degenerate fit still yields a usable factor.
 */
export function cholesky(matrix: SymmetricMatrix): Float64Array {
  const n = matrix.size;
  let scale = 0;
  for (let i = 0; i < n; i++) scale = Math.max(scale, Math.abs(matrix.get(i, i)));
  for (let ridge = 0; ; ridge = ridge === 0 ? 1e-10 * (scale || 1) : ridge * 100) {
    const factor = tryCholesky(matrix, ridge);
    if (factor) return factor;
    if (ridge > 1e6 * (scale || 1)) throw new RangeError('matrix is not positive definite');
  }
}

function tryCholesky(matrix: SymmetricMatrix, ridge: number): Float64Array | undefined {
  const n = matrix.size;
  const l = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    let diagonal = matrix.get(j, j) + ridge;
    for (let k = 0; k < j; k++) diagonal -= l[j * n + k]! ** 2;
    if (!(diagonal > 0) || !Number.isFinite(diagonal)) return undefined;
    const root = Math.sqrt(diagonal);
    l[j * n + j] = root;
    for (let i = j + 1; i < n; i++) {
      let sum = matrix.get(i, j);
      for (let k = 0; k < j; k++) sum -= l[i * n + k]! * l[j * n + k]!;
      l[i * n + j] = sum / root;
    }
  }
  return l;
}

/** y = L⁻¹ b (forward substitution); |y|² is bᵀ A⁻¹ b. */
export function forwardSolve(l: Float64Array, b: ArrayLike<number>): Float64Array {
  const n = b.length;
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = b[i]!;
    for (let k = 0; k < i; k++) sum -= l[i * n + k]! * y[k]!;
    y[i] = sum / l[i * n + i]!;
  }
  return y;
}

/** x = A⁻¹ b from A's Cholesky factor. */
export function choleskySolve(l: Float64Array, b: ArrayLike<number>): Float64Array {
  const n = b.length;
  const x = forwardSolve(l, b);
  for (let i = n - 1; i >= 0; i--) {
    let sum = x[i]!;
    for (let k = i + 1; k < n; k++) sum -= l[k * n + i]! * x[k]!;
    x[i] = sum / l[i * n + i]!;
  }
  return x;
}

/** bᵀ A⁻¹ b: the variance of a linear function with gradient b under covariance A⁻¹. */
export function inverseQuadraticForm(l: Float64Array, b: ArrayLike<number>): number {
  const y = forwardSolve(l, b);
  let sum = 0;
  for (let i = 0; i < y.length; i++) sum += y[i]! ** 2;
  return sum;
}
