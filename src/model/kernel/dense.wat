;; Dense layers of the forecasting network and its layer normalisations, in
;; WebAssembly with 128-bit SIMD (f64x2). Assembled by `npm run build:kernel` (tools/build-kernel.ts, wabt's
;; wat2wasm) into src/model/kernel/dense-wasm.ts.
;;
;; Arithmetic is that of the JavaScript kernel of src/model/network.ts, lane for
;; lane: every dot product keeps four partial sums (k mod 4), the tail
;; (inSize mod 4) is added to the first, and the result is
;; (bias + (s0 + s1)) + (s2 + s3); products and sums are separate IEEE
;; operations (no fused multiply-add), so both kernels give the same bits.
;; All pointers are byte offsets into the imported memory; arrays are float64.
(module
  (import "env" "memory" (memory 1))
  ;; y[r, n] = b[n] + Σ_k x[r, k] w[n, k] for rows r.
  (func $row1 (param $xr i32) (param $in i32) (param $wn i32) (param $tail i32) (param $bias f64) (result f64)
    (local $k i32) (local $a v128) (local $c v128) (local $l0 f64)
    (local.set $a (v128.const f64x2 0 0))
    (local.set $c (v128.const f64x2 0 0))
    (local.set $k (i32.const 0))
    (block $done (loop $loop
      (br_if $done (i32.ge_u (local.get $k) (local.get $tail)))
      (local.set $a (f64x2.add (local.get $a) (f64x2.mul
        (v128.load (i32.add (local.get $xr) (i32.shl (local.get $k) (i32.const 3))))
        (v128.load (i32.add (local.get $wn) (i32.shl (local.get $k) (i32.const 3)))))))
      (local.set $c (f64x2.add (local.get $c) (f64x2.mul
        (v128.load offset=16 (i32.add (local.get $xr) (i32.shl (local.get $k) (i32.const 3))))
        (v128.load offset=16 (i32.add (local.get $wn) (i32.shl (local.get $k) (i32.const 3)))))))
      (local.set $k (i32.add (local.get $k) (i32.const 4)))
      (br $loop)))
    (local.set $l0 (f64x2.extract_lane 0 (local.get $a)))
    (block $d2 (loop $l2
      (br_if $d2 (i32.ge_u (local.get $k) (local.get $in)))
      (local.set $l0 (f64.add (local.get $l0) (f64.mul
        (f64.load (i32.add (local.get $xr) (i32.shl (local.get $k) (i32.const 3))))
        (f64.load (i32.add (local.get $wn) (i32.shl (local.get $k) (i32.const 3)))))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $l2)))
    (f64.add
      (f64.add (local.get $bias) (f64.add (local.get $l0) (f64x2.extract_lane 1 (local.get $a))))
      (f64.add (f64x2.extract_lane 0 (local.get $c)) (f64x2.extract_lane 1 (local.get $c)))))

  ;; Outputs n and n + 1 of one row: row1's arithmetic for each, the row's values loaded once for both
  ;; (14.5 GFLOP/s for a single window against 9.4 for row1 alone; docs/model.md).
  (func $row2 (param $xr i32) (param $in i32) (param $wn i32) (param $tail i32) (param $bn i32) (param $yo i32)
    (local $k i32) (local $wm i32) (local $xl v128) (local $xh v128)
    (local $a v128) (local $c v128) (local $p v128) (local $q v128) (local $la f64) (local $lp f64) (local $xk f64)
    (local.set $wm (i32.add (local.get $wn) (i32.shl (local.get $in) (i32.const 3))))
    (local.set $a (v128.const f64x2 0 0))
    (local.set $c (v128.const f64x2 0 0))
    (local.set $p (v128.const f64x2 0 0))
    (local.set $q (v128.const f64x2 0 0))
    (local.set $k (i32.const 0))
    (block $done (loop $loop
      (br_if $done (i32.ge_u (local.get $k) (local.get $tail)))
      (local.set $xl (v128.load (i32.add (local.get $xr) (i32.shl (local.get $k) (i32.const 3)))))
      (local.set $xh (v128.load offset=16 (i32.add (local.get $xr) (i32.shl (local.get $k) (i32.const 3)))))
      (local.set $a (f64x2.add (local.get $a) (f64x2.mul (local.get $xl)
        (v128.load (i32.add (local.get $wn) (i32.shl (local.get $k) (i32.const 3)))))))
      (local.set $c (f64x2.add (local.get $c) (f64x2.mul (local.get $xh)
        (v128.load offset=16 (i32.add (local.get $wn) (i32.shl (local.get $k) (i32.const 3)))))))
      (local.set $p (f64x2.add (local.get $p) (f64x2.mul (local.get $xl)
        (v128.load (i32.add (local.get $wm) (i32.shl (local.get $k) (i32.const 3)))))))
      (local.set $q (f64x2.add (local.get $q) (f64x2.mul (local.get $xh)
        (v128.load offset=16 (i32.add (local.get $wm) (i32.shl (local.get $k) (i32.const 3)))))))
      (local.set $k (i32.add (local.get $k) (i32.const 4)))
      (br $loop)))
    (local.set $la (f64x2.extract_lane 0 (local.get $a)))
    (local.set $lp (f64x2.extract_lane 0 (local.get $p)))
    (block $d2 (loop $l2
      (br_if $d2 (i32.ge_u (local.get $k) (local.get $in)))
      (local.set $xk (f64.load (i32.add (local.get $xr) (i32.shl (local.get $k) (i32.const 3)))))
      (local.set $la (f64.add (local.get $la) (f64.mul (local.get $xk)
        (f64.load (i32.add (local.get $wn) (i32.shl (local.get $k) (i32.const 3)))))))
      (local.set $lp (f64.add (local.get $lp) (f64.mul (local.get $xk)
        (f64.load (i32.add (local.get $wm) (i32.shl (local.get $k) (i32.const 3)))))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $l2)))
    (f64.store (local.get $yo)
      (f64.add
        (f64.add (f64.load (local.get $bn)) (f64.add (local.get $la) (f64x2.extract_lane 1 (local.get $a))))
        (f64.add (f64x2.extract_lane 0 (local.get $c)) (f64x2.extract_lane 1 (local.get $c)))))
    (f64.store offset=8 (local.get $yo)
      (f64.add
        (f64.add (f64.load offset=8 (local.get $bn)) (f64.add (local.get $lp) (f64x2.extract_lane 1 (local.get $p))))
        (f64.add (f64x2.extract_lane 0 (local.get $q)) (f64x2.extract_lane 1 (local.get $q))))))

  (func (export "linear") (param $x i32) (param $rows i32) (param $in i32) (param $w i32) (param $b i32) (param $out i32) (param $y i32)
    (local $r i32) (local $n i32) (local $k i32) (local $tail i32) (local $rowBytes i32)
    (local $xa i32) (local $xb i32) (local $xc i32) (local $wn i32) (local $bias f64)
    (local $wa v128) (local $wc v128)
    (local $a0 v128) (local $a1 v128) (local $b0 v128) (local $b1 v128)
    (local $c0 v128) (local $c1 v128)
    (local $la f64) (local $lb f64) (local $lc f64) (local $wk f64) (local $yo i32)
    (local.set $tail (i32.sub (local.get $in) (i32.rem_u (local.get $in) (i32.const 4))))
    (local.set $rowBytes (i32.shl (local.get $in) (i32.const 3)))
    (local.set $r (i32.const 0))
    ;; three rows at a time (measured: 16 GFLOP/s on 256 x 128 -> 128, against 9.8 with four rows and
    ;; 10-12 with two weight rows a pass; docs/model.md)
    (block $rows3done (loop $rows3
      (br_if $rows3done (i32.gt_u (i32.add (local.get $r) (i32.const 3)) (local.get $rows)))
      (local.set $xa (i32.add (local.get $x) (i32.mul (local.get $r) (local.get $rowBytes))))
      (local.set $xb (i32.add (local.get $xa) (local.get $rowBytes)))
      (local.set $xc (i32.add (local.get $xb) (local.get $rowBytes)))
      (local.set $n (i32.const 0))
      (block $ndone (loop $nloop
        (br_if $ndone (i32.ge_u (local.get $n) (local.get $out)))
        (local.set $wn (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $rowBytes))))
        (local.set $a0 (v128.const f64x2 0 0)) (local.set $a1 (v128.const f64x2 0 0))
        (local.set $b0 (v128.const f64x2 0 0)) (local.set $b1 (v128.const f64x2 0 0))
        (local.set $c0 (v128.const f64x2 0 0)) (local.set $c1 (v128.const f64x2 0 0))
        (local.set $k (i32.const 0))
        (block $kdone (loop $kloop
          (br_if $kdone (i32.ge_u (local.get $k) (i32.shl (local.get $tail) (i32.const 3))))
          (local.set $wa (v128.load (i32.add (local.get $wn) (local.get $k))))
          (local.set $wc (v128.load offset=16 (i32.add (local.get $wn) (local.get $k))))
          (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (v128.load (i32.add (local.get $xa) (local.get $k))) (local.get $wa))))
          (local.set $a1 (f64x2.add (local.get $a1) (f64x2.mul (v128.load offset=16 (i32.add (local.get $xa) (local.get $k))) (local.get $wc))))
          (local.set $b0 (f64x2.add (local.get $b0) (f64x2.mul (v128.load (i32.add (local.get $xb) (local.get $k))) (local.get $wa))))
          (local.set $b1 (f64x2.add (local.get $b1) (f64x2.mul (v128.load offset=16 (i32.add (local.get $xb) (local.get $k))) (local.get $wc))))
          (local.set $c0 (f64x2.add (local.get $c0) (f64x2.mul (v128.load (i32.add (local.get $xc) (local.get $k))) (local.get $wa))))
          (local.set $c1 (f64x2.add (local.get $c1) (f64x2.mul (v128.load offset=16 (i32.add (local.get $xc) (local.get $k))) (local.get $wc))))
          (local.set $k (i32.add (local.get $k) (i32.const 32)))
          (br $kloop)))
        ;; the tail goes to lane 0 of each row
        (local.set $la (f64x2.extract_lane 0 (local.get $a0)))
        (local.set $lb (f64x2.extract_lane 0 (local.get $b0)))
        (local.set $lc (f64x2.extract_lane 0 (local.get $c0)))
        (block $tdone (loop $tloop
          (br_if $tdone (i32.ge_u (local.get $k) (local.get $rowBytes)))
          (local.set $wk (f64.load (i32.add (local.get $wn) (local.get $k))))
          (local.set $la (f64.add (local.get $la) (f64.mul (f64.load (i32.add (local.get $xa) (local.get $k))) (local.get $wk))))
          (local.set $lb (f64.add (local.get $lb) (f64.mul (f64.load (i32.add (local.get $xb) (local.get $k))) (local.get $wk))))
          (local.set $lc (f64.add (local.get $lc) (f64.mul (f64.load (i32.add (local.get $xc) (local.get $k))) (local.get $wk))))
          (local.set $k (i32.add (local.get $k) (i32.const 8)))
          (br $tloop)))
        (local.set $bias (f64.load (i32.add (local.get $b) (i32.shl (local.get $n) (i32.const 3)))))
        (local.set $yo (i32.add (local.get $y) (i32.shl (i32.add (i32.mul (local.get $r) (local.get $out)) (local.get $n)) (i32.const 3))))
        (f64.store (local.get $yo)
          (f64.add (f64.add (local.get $bias) (f64.add (local.get $la) (f64x2.extract_lane 1 (local.get $a0))))
                   (f64.add (f64x2.extract_lane 0 (local.get $a1)) (f64x2.extract_lane 1 (local.get $a1)))))
        (local.set $yo (i32.add (local.get $yo) (i32.shl (local.get $out) (i32.const 3))))
        (f64.store (local.get $yo)
          (f64.add (f64.add (local.get $bias) (f64.add (local.get $lb) (f64x2.extract_lane 1 (local.get $b0))))
                   (f64.add (f64x2.extract_lane 0 (local.get $b1)) (f64x2.extract_lane 1 (local.get $b1)))))
        (local.set $yo (i32.add (local.get $yo) (i32.shl (local.get $out) (i32.const 3))))
        (f64.store (local.get $yo)
          (f64.add (f64.add (local.get $bias) (f64.add (local.get $lc) (f64x2.extract_lane 1 (local.get $c0))))
                   (f64.add (f64x2.extract_lane 0 (local.get $c1)) (f64x2.extract_lane 1 (local.get $c1)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $nloop)))
      (local.set $r (i32.add (local.get $r) (i32.const 3)))
      (br $rows3)))
    ;; remaining rows one at a time, two outputs a pass, then the last output alone
    (block $rdone (loop $rloop
      (br_if $rdone (i32.ge_u (local.get $r) (local.get $rows)))
      (local.set $xa (i32.add (local.get $x) (i32.mul (local.get $r) (local.get $rowBytes))))
      (local.set $n (i32.const 0))
      (block $n2done (loop $n2loop
        (br_if $n2done (i32.gt_u (i32.add (local.get $n) (i32.const 2)) (local.get $out)))
        (call $row2 (local.get $xa) (local.get $in)
          (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $rowBytes)))
          (local.get $tail)
          (i32.add (local.get $b) (i32.shl (local.get $n) (i32.const 3)))
          (i32.add (local.get $y) (i32.shl (i32.add (i32.mul (local.get $r) (local.get $out)) (local.get $n)) (i32.const 3))))
        (local.set $n (i32.add (local.get $n) (i32.const 2)))
        (br $n2loop)))
      (block $n1done (loop $n1loop
        (br_if $n1done (i32.ge_u (local.get $n) (local.get $out)))
        (f64.store
          (i32.add (local.get $y) (i32.shl (i32.add (i32.mul (local.get $r) (local.get $out)) (local.get $n)) (i32.const 3)))
          (call $row1 (local.get $xa) (local.get $in)
            (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $rowBytes)))
            (local.get $tail)
            (f64.load (i32.add (local.get $b) (i32.shl (local.get $n) (i32.const 3))))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $n1loop)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rloop)))
  )

;; dW[n, k] += dy[r, n] x[r, k], db[n] += dy[r, n] and, when hasDx, dx[r, k] += dy[r, n] w[n, k];
  ;; entries whose dy is 0 are skipped. Each sum takes its terms in the TypeScript loop's order (dW and db:
  ;; rows r in order; dx: outputs n in order), two terms a pass: an entry is loaded and stored once for
  ;; two nonzero dy, (s + g1 a1) + g2 a2, the same operations as two passes. Two k at a time.
  (func $axpy2 (param $dst i32) (param $a1 i32) (param $g1 f64) (param $a2 i32) (param $g2 f64) (param $pairs i32) (param $bytes i32)
    (local $k i32) (local $v1 v128) (local $v2 v128) (local $at i32)
    (local.set $v1 (f64x2.splat (local.get $g1)))
    (local.set $v2 (f64x2.splat (local.get $g2)))
    (local.set $k (i32.const 0))
    (block $done (loop $loop
      (br_if $done (i32.ge_u (local.get $k) (local.get $pairs)))
      (local.set $at (i32.add (local.get $dst) (local.get $k)))
      (v128.store (local.get $at)
        (f64x2.add
          (f64x2.add (v128.load (local.get $at)) (f64x2.mul (local.get $v1) (v128.load (i32.add (local.get $a1) (local.get $k)))))
          (f64x2.mul (local.get $v2) (v128.load (i32.add (local.get $a2) (local.get $k))))))
      (local.set $k (i32.add (local.get $k) (i32.const 16)))
      (br $loop)))
    (if (i32.lt_u (local.get $k) (local.get $bytes))
      (then
        (local.set $at (i32.add (local.get $dst) (local.get $k)))
        (f64.store (local.get $at)
          (f64.add
            (f64.add (f64.load (local.get $at)) (f64.mul (local.get $g1) (f64.load (i32.add (local.get $a1) (local.get $k)))))
            (f64.mul (local.get $g2) (f64.load (i32.add (local.get $a2) (local.get $k)))))))))

  ;; dst[k] += g a[k] (one term).
  (func $axpy1 (param $dst i32) (param $a1 i32) (param $g1 f64) (param $pairs i32) (param $bytes i32)
    (local $k i32) (local $v1 v128) (local $at i32)
    (local.set $v1 (f64x2.splat (local.get $g1)))
    (local.set $k (i32.const 0))
    (block $done (loop $loop
      (br_if $done (i32.ge_u (local.get $k) (local.get $pairs)))
      (local.set $at (i32.add (local.get $dst) (local.get $k)))
      (v128.store (local.get $at) (f64x2.add (v128.load (local.get $at)) (f64x2.mul (local.get $v1) (v128.load (i32.add (local.get $a1) (local.get $k))))))
      (local.set $k (i32.add (local.get $k) (i32.const 16)))
      (br $loop)))
    (if (i32.lt_u (local.get $k) (local.get $bytes))
      (then
        (local.set $at (i32.add (local.get $dst) (local.get $k)))
        (f64.store (local.get $at) (f64.add (f64.load (local.get $at)) (f64.mul (local.get $g1) (f64.load (i32.add (local.get $a1) (local.get $k)))))))))

  (func (export "linearBackward") (param $x i32) (param $rows i32) (param $in i32) (param $w i32) (param $out i32)
    (param $dy i32) (param $gw i32) (param $gb i32) (param $dx i32) (param $hasDx i32)
    (local $r i32) (local $n i32) (local $rowBytes i32) (local $pairs i32) (local $outBytes i32)
    (local $g f64) (local $held f64) (local $heldAt i32) (local $has i32) (local $at i32) (local $dst i32)
    (local.set $rowBytes (i32.shl (local.get $in) (i32.const 3)))
    (local.set $outBytes (i32.shl (local.get $out) (i32.const 3)))
    (local.set $pairs (i32.shl (i32.sub (local.get $in) (i32.rem_u (local.get $in) (i32.const 2))) (i32.const 3)))
    ;; dW and db: for each output n, the rows in order, two nonzero dy a pass
    (local.set $n (i32.const 0))
    (block $ndone (loop $nloop
      (br_if $ndone (i32.ge_u (local.get $n) (local.get $out)))
      (local.set $dst (i32.add (local.get $gw) (i32.mul (local.get $n) (local.get $rowBytes))))
      (local.set $at (i32.add (local.get $gb) (i32.shl (local.get $n) (i32.const 3))))
      (local.set $has (i32.const 0))
      (local.set $r (i32.const 0))
      (block $rdone (loop $rloop
        (br_if $rdone (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $g (f64.load (i32.add (local.get $dy) (i32.add (i32.mul (local.get $r) (local.get $outBytes)) (i32.shl (local.get $n) (i32.const 3))))))
        (if (f64.ne (local.get $g) (f64.const 0))
          (then
            (f64.store (local.get $at) (f64.add (f64.load (local.get $at)) (local.get $g)))
            (if (local.get $has)
              (then
                (call $axpy2 (local.get $dst) (local.get $heldAt) (local.get $held)
                  (i32.add (local.get $x) (i32.mul (local.get $r) (local.get $rowBytes))) (local.get $g) (local.get $pairs) (local.get $rowBytes))
                (local.set $has (i32.const 0)))
              (else
                (local.set $held (local.get $g))
                (local.set $heldAt (i32.add (local.get $x) (i32.mul (local.get $r) (local.get $rowBytes))))
                (local.set $has (i32.const 1))))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rloop)))
      (if (local.get $has)
        (then (call $axpy1 (local.get $dst) (local.get $heldAt) (local.get $held) (local.get $pairs) (local.get $rowBytes))))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $nloop)))
    ;; dx: for each row r, the outputs in order, two nonzero dy a pass
    (if (local.get $hasDx)
      (then
        (local.set $r (i32.const 0))
        (block $r2done (loop $r2loop
          (br_if $r2done (i32.ge_u (local.get $r) (local.get $rows)))
          (local.set $dst (i32.add (local.get $dx) (i32.mul (local.get $r) (local.get $rowBytes))))
          (local.set $has (i32.const 0))
          (local.set $n (i32.const 0))
          (block $n2done (loop $n2loop
            (br_if $n2done (i32.ge_u (local.get $n) (local.get $out)))
            (local.set $g (f64.load (i32.add (local.get $dy) (i32.add (i32.mul (local.get $r) (local.get $outBytes)) (i32.shl (local.get $n) (i32.const 3))))))
            (if (f64.ne (local.get $g) (f64.const 0))
              (then
                (if (local.get $has)
                  (then
                    (call $axpy2 (local.get $dst) (local.get $heldAt) (local.get $held)
                      (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $rowBytes))) (local.get $g) (local.get $pairs) (local.get $rowBytes))
                    (local.set $has (i32.const 0)))
                  (else
                    (local.set $held (local.get $g))
                    (local.set $heldAt (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $rowBytes))))
                    (local.set $has (i32.const 1))))))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (br $n2loop)))
          (if (local.get $has)
            (then (call $axpy1 (local.get $dst) (local.get $heldAt) (local.get $held) (local.get $pairs) (local.get $rowBytes))))
          (local.set $r (i32.add (local.get $r) (i32.const 1)))
          (br $r2loop)))))
  )

  ;; dst[i] = src[i] > 0 ? src[i] : 0 (as the TypeScript kernel: NaN and −0 give +0), n values.
  (func (export "relu") (param $dst i32) (param $src i32) (param $n i32)
    (local $i i32) (local $end i32) (local $v v128) (local $s f64)
    (local.set $end (i32.shl (local.get $n) (i32.const 3)))
    (local.set $i (i32.const 0))
    (block $done (loop $loop
      (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
      (local.set $v (v128.load (i32.add (local.get $src) (local.get $i))))
      (v128.store (i32.add (local.get $dst) (local.get $i))
        (v128.and (local.get $v) (f64x2.gt (local.get $v) (v128.const f64x2 0 0))))
      (local.set $i (i32.add (local.get $i) (i32.const 16)))
      (br $loop)))
    (if (i32.lt_u (local.get $i) (local.get $end))
      (then
        (local.set $s (f64.load (i32.add (local.get $src) (local.get $i))))
        (f64.store (i32.add (local.get $dst) (local.get $i))
          (select (local.get $s) (f64.const 0) (f64.gt (local.get $s) (f64.const 0)))))))
  ;; dst[i] += src[i], n values.
  (func (export "addInto") (param $dst i32) (param $src i32) (param $n i32)
    (local $i i32) (local $end i32)
    (local.set $end (i32.shl (local.get $n) (i32.const 3)))
    (local.set $i (i32.const 0))
    (block $done (loop $loop
      (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
      (v128.store (i32.add (local.get $dst) (local.get $i))
        (f64x2.add (v128.load (i32.add (local.get $dst) (local.get $i))) (v128.load (i32.add (local.get $src) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 16)))
      (br $loop)))
    (if (i32.lt_u (local.get $i) (local.get $end))
      (then
        (f64.store (i32.add (local.get $dst) (local.get $i))
          (f64.add (f64.load (i32.add (local.get $dst) (local.get $i))) (f64.load (i32.add (local.get $src) (local.get $i))))))))
  ;; Row-wise layer normalisation (src/model/network.ts, layerNorm): for each of
  ;; `rows` rows of h (width values each), mean = (0 + h[r, 0] + … + h[r, width − 1])
  ;; / width, v = 0 + Σ (h[r, i] − mean)² in index order, inv = 1 / sqrt(v / width
  ;; + eps); inv[r] = inv and u[r, i] = (h[r, i] − mean) · inv. Lanes are rows: a
  ;; vector holds rows r and r + 1 (each value loaded into its own lane), each lane
  ;; summing its own row in index order, so the bits are the TypeScript loop's.
  ;; Four rows (two vectors) at a time, then two, then one.
  (func (export "layerNorm") (param $h i32) (param $rows i32) (param $width i32) (param $u i32) (param $inv i32) (param $eps f64)
    (local $r i32) (local $i i32) (local $rowBytes i32) (local $a i32) (local $b i32) (local $c i32) (local $d i32) (local $o i32)
    (local $wv v128) (local $epsv v128) (local $one v128)
    (local $m01 v128) (local $m23 v128) (local $v01 v128) (local $v23 v128) (local $x01 v128) (local $x23 v128) (local $i01 v128) (local $i23 v128)
    (local $ms f64) (local $vs f64) (local $xs f64) (local $is f64)
    (local.set $rowBytes (i32.shl (local.get $width) (i32.const 3)))
    (local.set $wv (f64x2.splat (f64.convert_i32_s (local.get $width))))
    (local.set $epsv (f64x2.splat (local.get $eps)))
    (local.set $one (f64x2.splat (f64.const 1)))
    (local.set $r (i32.const 0))
    (block $done4 (loop $loop4
      (br_if $done4 (i32.gt_s (i32.add (local.get $r) (i32.const 4)) (local.get $rows)))
      ;; $o: the byte offset of row r in h and in u; $a $b $c $d: rows r .. r + 3 of h
      (local.set $o (i32.mul (local.get $r) (local.get $rowBytes)))
      (local.set $a (i32.add (local.get $h) (local.get $o)))
      (local.set $b (i32.add (local.get $a) (local.get $rowBytes)))
      (local.set $c (i32.add (local.get $b) (local.get $rowBytes)))
      (local.set $d (i32.add (local.get $c) (local.get $rowBytes)))
      (local.set $m01 (v128.const f64x2 0 0))
      (local.set $m23 (v128.const f64x2 0 0))
      (local.set $i (i32.const 0))
      (block $e1 (loop $l1
        (br_if $e1 (i32.ge_u (local.get $i) (local.get $rowBytes)))
        (local.set $m01 (f64x2.add (local.get $m01)
          (v128.load64_lane 1 (i32.add (local.get $b) (local.get $i)) (v128.load64_zero (i32.add (local.get $a) (local.get $i))))))
        (local.set $m23 (f64x2.add (local.get $m23)
          (v128.load64_lane 1 (i32.add (local.get $d) (local.get $i)) (v128.load64_zero (i32.add (local.get $c) (local.get $i))))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $l1)))
      (local.set $m01 (f64x2.div (local.get $m01) (local.get $wv)))
      (local.set $m23 (f64x2.div (local.get $m23) (local.get $wv)))
      (local.set $v01 (v128.const f64x2 0 0))
      (local.set $v23 (v128.const f64x2 0 0))
      (local.set $i (i32.const 0))
      (block $e2 (loop $l2
        (br_if $e2 (i32.ge_u (local.get $i) (local.get $rowBytes)))
        (local.set $x01 (f64x2.sub
          (v128.load64_lane 1 (i32.add (local.get $b) (local.get $i)) (v128.load64_zero (i32.add (local.get $a) (local.get $i))))
          (local.get $m01)))
        (local.set $x23 (f64x2.sub
          (v128.load64_lane 1 (i32.add (local.get $d) (local.get $i)) (v128.load64_zero (i32.add (local.get $c) (local.get $i))))
          (local.get $m23)))
        (local.set $v01 (f64x2.add (local.get $v01) (f64x2.mul (local.get $x01) (local.get $x01))))
        (local.set $v23 (f64x2.add (local.get $v23) (f64x2.mul (local.get $x23) (local.get $x23))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $l2)))
      (local.set $i01 (f64x2.div (local.get $one) (f64x2.sqrt (f64x2.add (f64x2.div (local.get $v01) (local.get $wv)) (local.get $epsv)))))
      (local.set $i23 (f64x2.div (local.get $one) (f64x2.sqrt (f64x2.add (f64x2.div (local.get $v23) (local.get $wv)) (local.get $epsv)))))
      (v128.store (i32.add (local.get $inv) (i32.shl (local.get $r) (i32.const 3))) (local.get $i01))
      (v128.store offset=16 (i32.add (local.get $inv) (i32.shl (local.get $r) (i32.const 3))) (local.get $i23))
      ;; $o: row r of u from here
      (local.set $o (i32.add (local.get $u) (local.get $o)))
      (local.set $i (i32.const 0))
      (block $e3 (loop $l3
        (br_if $e3 (i32.ge_u (local.get $i) (local.get $rowBytes)))
        (local.set $x01 (f64x2.mul (f64x2.sub
          (v128.load64_lane 1 (i32.add (local.get $b) (local.get $i)) (v128.load64_zero (i32.add (local.get $a) (local.get $i))))
          (local.get $m01)) (local.get $i01)))
        (local.set $x23 (f64x2.mul (f64x2.sub
          (v128.load64_lane 1 (i32.add (local.get $d) (local.get $i)) (v128.load64_zero (i32.add (local.get $c) (local.get $i))))
          (local.get $m23)) (local.get $i23)))
        (v128.store64_lane 0 (i32.add (local.get $o) (local.get $i)) (local.get $x01))
        (v128.store64_lane 1 (i32.add (i32.add (local.get $o) (local.get $rowBytes)) (local.get $i)) (local.get $x01))
        (v128.store64_lane 0 (i32.add (i32.add (local.get $o) (i32.shl (local.get $rowBytes) (i32.const 1))) (local.get $i)) (local.get $x23))
        (v128.store64_lane 1 (i32.add (i32.add (local.get $o) (i32.mul (local.get $rowBytes) (i32.const 3))) (local.get $i)) (local.get $x23))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $l3)))
      (local.set $r (i32.add (local.get $r) (i32.const 4)))
      (br $loop4)))
    ;; the last rows, one at a time
    (block $done1 (loop $loop1
      (br_if $done1 (i32.ge_s (local.get $r) (local.get $rows)))
      (local.set $o (i32.mul (local.get $r) (local.get $rowBytes)))
      (local.set $a (i32.add (local.get $h) (local.get $o)))
      (local.set $ms (f64.const 0))
      (local.set $i (i32.const 0))
      (block $f1 (loop $k1
        (br_if $f1 (i32.ge_u (local.get $i) (local.get $rowBytes)))
        (local.set $ms (f64.add (local.get $ms) (f64.load (i32.add (local.get $a) (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $k1)))
      (local.set $ms (f64.div (local.get $ms) (f64.convert_i32_s (local.get $width))))
      (local.set $vs (f64.const 0))
      (local.set $i (i32.const 0))
      (block $f2 (loop $k2
        (br_if $f2 (i32.ge_u (local.get $i) (local.get $rowBytes)))
        (local.set $xs (f64.sub (f64.load (i32.add (local.get $a) (local.get $i))) (local.get $ms)))
        (local.set $vs (f64.add (local.get $vs) (f64.mul (local.get $xs) (local.get $xs))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $k2)))
      (local.set $is (f64.div (f64.const 1) (f64.sqrt (f64.add (f64.div (local.get $vs) (f64.convert_i32_s (local.get $width))) (local.get $eps)))))
      (f64.store (i32.add (local.get $inv) (i32.shl (local.get $r) (i32.const 3))) (local.get $is))
      (local.set $o (i32.add (local.get $u) (local.get $o)))
      (local.set $i (i32.const 0))
      (block $f3 (loop $k3
        (br_if $f3 (i32.ge_u (local.get $i) (local.get $rowBytes)))
        (f64.store (i32.add (local.get $o) (local.get $i))
          (f64.mul (f64.sub (f64.load (i32.add (local.get $a) (local.get $i))) (local.get $ms)) (local.get $is)))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $k3)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $loop1)))
  )
)
