;; The seasonal judges' window moments (src/anomaly/seasonal-judge.ts), in
;; WebAssembly with 128-bit SIMD (f64x2). Assembled by `npm run build:kernel`
;; (tools/build-kernel.ts, wabt's wat2wasm) into src/anomaly/kernel/moments-wasm.ts.
;;
;; windowMoments(d, window, count, mean, squares): for j = 0 .. count − 1, the
;; window d[j .. j + window) (d a byte address of f64 values) has
;; mean[j] = (Σ d[k]) / window and squares[j] = Σ (d[k] − mean[j])², both sums
;; from 0 in index order: the TypeScript loops' operations (no fused
;; multiply-add), so both give the same bits. Each f64x2 lane is one window
;; (the window starting one value later in the high lane); eight windows run
;; side by side (four vectors of independent sums), then two, then one.
;; Needs window >= 1.
(module
  (import "env" "memory" (memory 1))
  (func (export "windowMoments") (param $d i32) (param $window i32) (param $count i32) (param $mean i32) (param $squares i32)
    (local $j i32) (local $p i32) (local $end i32) (local $out i32)
    (local $w v128) (local $wf f64)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $e0 v128) (local $e1 v128) (local $e2 v128) (local $e3 v128)
    (local $a f64) (local $s f64) (local $e f64)
    (local.set $wf (f64.convert_i32_s (local.get $window)))
    (local.set $w (f64x2.splat (local.get $wf)))
    (local.set $j (i32.const 0))
    ;; eight windows: j .. j + 7
    (block $eightDone
      (loop $eight
        (br_if $eightDone (i32.gt_s (i32.add (local.get $j) (i32.const 8)) (local.get $count)))
        (local.set $p (i32.add (local.get $d) (i32.shl (local.get $j) (i32.const 3))))
        (local.set $end (i32.add (local.get $p) (i32.shl (local.get $window) (i32.const 3))))
        (local.set $a0 (v128.const f64x2 0 0))
        (local.set $a1 (v128.const f64x2 0 0))
        (local.set $a2 (v128.const f64x2 0 0))
        (local.set $a3 (v128.const f64x2 0 0))
        (loop $sum
          (local.set $a0 (f64x2.add (local.get $a0) (v128.load offset=0 align=8 (local.get $p))))
          (local.set $a1 (f64x2.add (local.get $a1) (v128.load offset=16 align=8 (local.get $p))))
          (local.set $a2 (f64x2.add (local.get $a2) (v128.load offset=32 align=8 (local.get $p))))
          (local.set $a3 (f64x2.add (local.get $a3) (v128.load offset=48 align=8 (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 8)))
          (br_if $sum (i32.lt_u (local.get $p) (local.get $end))))
        (local.set $a0 (f64x2.div (local.get $a0) (local.get $w)))
        (local.set $a1 (f64x2.div (local.get $a1) (local.get $w)))
        (local.set $a2 (f64x2.div (local.get $a2) (local.get $w)))
        (local.set $a3 (f64x2.div (local.get $a3) (local.get $w)))
        (local.set $p (i32.add (local.get $d) (i32.shl (local.get $j) (i32.const 3))))
        (local.set $s0 (v128.const f64x2 0 0))
        (local.set $s1 (v128.const f64x2 0 0))
        (local.set $s2 (v128.const f64x2 0 0))
        (local.set $s3 (v128.const f64x2 0 0))
        (loop $square
          (local.set $e0 (f64x2.sub (v128.load offset=0 align=8 (local.get $p)) (local.get $a0)))
          (local.set $e1 (f64x2.sub (v128.load offset=16 align=8 (local.get $p)) (local.get $a1)))
          (local.set $e2 (f64x2.sub (v128.load offset=32 align=8 (local.get $p)) (local.get $a2)))
          (local.set $e3 (f64x2.sub (v128.load offset=48 align=8 (local.get $p)) (local.get $a3)))
          (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (local.get $e0) (local.get $e0))))
          (local.set $s1 (f64x2.add (local.get $s1) (f64x2.mul (local.get $e1) (local.get $e1))))
          (local.set $s2 (f64x2.add (local.get $s2) (f64x2.mul (local.get $e2) (local.get $e2))))
          (local.set $s3 (f64x2.add (local.get $s3) (f64x2.mul (local.get $e3) (local.get $e3))))
          (local.set $p (i32.add (local.get $p) (i32.const 8)))
          (br_if $square (i32.lt_u (local.get $p) (local.get $end))))
        (local.set $out (i32.add (local.get $mean) (i32.shl (local.get $j) (i32.const 3))))
        (v128.store offset=0 align=8 (local.get $out) (local.get $a0))
        (v128.store offset=16 align=8 (local.get $out) (local.get $a1))
        (v128.store offset=32 align=8 (local.get $out) (local.get $a2))
        (v128.store offset=48 align=8 (local.get $out) (local.get $a3))
        (local.set $out (i32.add (local.get $squares) (i32.shl (local.get $j) (i32.const 3))))
        (v128.store offset=0 align=8 (local.get $out) (local.get $s0))
        (v128.store offset=16 align=8 (local.get $out) (local.get $s1))
        (v128.store offset=32 align=8 (local.get $out) (local.get $s2))
        (v128.store offset=48 align=8 (local.get $out) (local.get $s3))
        (local.set $j (i32.add (local.get $j) (i32.const 8)))
        (br $eight)))
    ;; two windows: j, j + 1
    (block $twoDone
      (loop $two
        (br_if $twoDone (i32.gt_s (i32.add (local.get $j) (i32.const 2)) (local.get $count)))
        (local.set $p (i32.add (local.get $d) (i32.shl (local.get $j) (i32.const 3))))
        (local.set $end (i32.add (local.get $p) (i32.shl (local.get $window) (i32.const 3))))
        (local.set $a0 (v128.const f64x2 0 0))
        (loop $sum2
          (local.set $a0 (f64x2.add (local.get $a0) (v128.load offset=0 align=8 (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 8)))
          (br_if $sum2 (i32.lt_u (local.get $p) (local.get $end))))
        (local.set $a0 (f64x2.div (local.get $a0) (local.get $w)))
        (local.set $p (i32.add (local.get $d) (i32.shl (local.get $j) (i32.const 3))))
        (local.set $s0 (v128.const f64x2 0 0))
        (loop $square2
          (local.set $e0 (f64x2.sub (v128.load offset=0 align=8 (local.get $p)) (local.get $a0)))
          (local.set $s0 (f64x2.add (local.get $s0) (f64x2.mul (local.get $e0) (local.get $e0))))
          (local.set $p (i32.add (local.get $p) (i32.const 8)))
          (br_if $square2 (i32.lt_u (local.get $p) (local.get $end))))
        (v128.store align=8 (i32.add (local.get $mean) (i32.shl (local.get $j) (i32.const 3))) (local.get $a0))
        (v128.store align=8 (i32.add (local.get $squares) (i32.shl (local.get $j) (i32.const 3))) (local.get $s0))
        (local.set $j (i32.add (local.get $j) (i32.const 2)))
        (br $two)))
    ;; the last window, when count is odd
    (if (i32.lt_s (local.get $j) (local.get $count))
      (then
        (local.set $p (i32.add (local.get $d) (i32.shl (local.get $j) (i32.const 3))))
        (local.set $end (i32.add (local.get $p) (i32.shl (local.get $window) (i32.const 3))))
        (local.set $a (f64.const 0))
        (loop $sum1
          (local.set $a (f64.add (local.get $a) (f64.load (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 8)))
          (br_if $sum1 (i32.lt_u (local.get $p) (local.get $end))))
        (local.set $a (f64.div (local.get $a) (local.get $wf)))
        (local.set $p (i32.add (local.get $d) (i32.shl (local.get $j) (i32.const 3))))
        (local.set $s (f64.const 0))
        (loop $square1
          (local.set $e (f64.sub (f64.load (local.get $p)) (local.get $a)))
          (local.set $s (f64.add (local.get $s) (f64.mul (local.get $e) (local.get $e))))
          (local.set $p (i32.add (local.get $p) (i32.const 8)))
          (br_if $square1 (i32.lt_u (local.get $p) (local.get $end))))
        (f64.store (i32.add (local.get $mean) (i32.shl (local.get $j) (i32.const 3))) (local.get $a))
        (f64.store (i32.add (local.get $squares) (i32.shl (local.get $j) (i32.const 3))) (local.get $s))))))
