;; Adam's update of fine-tuning (src/model/train.ts, AdamOptimizer), in WebAssembly with 128-bit SIMD (f64x2).
;; Assembled by `npm run build:kernel` (tools/build-kernel.ts, wabt's wat2wasm) into src/model/kernel/adam-wasm.ts.
;;
;; For i in [from, to): m = b1·m + (1 − b1)·g, v = b2·v + (1 − b2)·g·g, θ = θ − (lr·(m / c1)) / (√(v / c2) + ε),
;; two parameters a vector, the last one alone when the count is odd. Every operation is the TypeScript loop's, in
;; its order (no fused multiply-add; division and square root are correctly rounded in both), so both give the same
;; bits.
;;
;; Memory: four arrays of `size` doubles one after another: θ from byte 0, g from 8·size, m from 16·size, v from
;; 24·size. The caller passes their byte offsets at `from`.
(module
  (import "env" "memory" (memory 1))
  (func (export "adam") (param $p i32) (param $g i32) (param $m i32) (param $v i32) (param $n i32)
        (param $b1 f64) (param $b2 f64) (param $c1 f64) (param $c2 f64) (param $lr f64) (param $eps f64)
    (local $i i32) (local $end i32) (local $gv v128) (local $mv v128) (local $vv v128)
    (local $B1 v128) (local $B2 v128) (local $OB1 v128) (local $OB2 v128) (local $C1 v128) (local $C2 v128) (local $LR v128) (local $EPS v128)
    (local $gs f64) (local $ms f64) (local $vs f64)
    (local.set $B1 (f64x2.splat (local.get $b1)))
    (local.set $B2 (f64x2.splat (local.get $b2)))
    (local.set $OB1 (f64x2.splat (f64.sub (f64.const 1) (local.get $b1))))
    (local.set $OB2 (f64x2.splat (f64.sub (f64.const 1) (local.get $b2))))
    (local.set $C1 (f64x2.splat (local.get $c1)))
    (local.set $C2 (f64x2.splat (local.get $c2)))
    (local.set $LR (f64x2.splat (local.get $lr)))
    (local.set $EPS (f64x2.splat (local.get $eps)))
    ;; bytes of the pairs
    (local.set $end (i32.shl (i32.and (local.get $n) (i32.const -2)) (i32.const 3)))
    (local.set $i (i32.const 0))
    (block $done
      (loop $pairs
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $gv (v128.load (i32.add (local.get $g) (local.get $i))))
        ;; m = b1·m + (1 − b1)·g
        (local.set $mv (f64x2.add (f64x2.mul (local.get $B1) (v128.load (i32.add (local.get $m) (local.get $i)))) (f64x2.mul (local.get $OB1) (local.get $gv))))
        (v128.store (i32.add (local.get $m) (local.get $i)) (local.get $mv))
        ;; v = b2·v + (1 − b2)·g·g
        (local.set $vv (f64x2.add (f64x2.mul (local.get $B2) (v128.load (i32.add (local.get $v) (local.get $i)))) (f64x2.mul (f64x2.mul (local.get $OB2) (local.get $gv)) (local.get $gv))))
        (v128.store (i32.add (local.get $v) (local.get $i)) (local.get $vv))
        ;; θ = θ − (lr·(m / c1)) / (√(v / c2) + ε)
        (v128.store (i32.add (local.get $p) (local.get $i))
          (f64x2.sub (v128.load (i32.add (local.get $p) (local.get $i)))
            (f64x2.div (f64x2.mul (local.get $LR) (f64x2.div (local.get $mv) (local.get $C1)))
                       (f64x2.add (f64x2.sqrt (f64x2.div (local.get $vv) (local.get $C2))) (local.get $EPS)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $pairs)))
    ;; an odd count: the last parameter alone
    (if (i32.and (local.get $n) (i32.const 1))
      (then
        (local.set $gs (f64.load (i32.add (local.get $g) (local.get $end))))
        (local.set $ms (f64.add (f64.mul (local.get $b1) (f64.load (i32.add (local.get $m) (local.get $end)))) (f64.mul (f64.sub (f64.const 1) (local.get $b1)) (local.get $gs))))
        (f64.store (i32.add (local.get $m) (local.get $end)) (local.get $ms))
        (local.set $vs (f64.add (f64.mul (local.get $b2) (f64.load (i32.add (local.get $v) (local.get $end)))) (f64.mul (f64.mul (f64.sub (f64.const 1) (local.get $b2)) (local.get $gs)) (local.get $gs))))
        (f64.store (i32.add (local.get $v) (local.get $end)) (local.get $vs))
        (f64.store (i32.add (local.get $p) (local.get $end))
          (f64.sub (f64.load (i32.add (local.get $p) (local.get $end)))
            (f64.div (f64.mul (local.get $lr) (f64.div (local.get $ms) (local.get $c1)))
                     (f64.add (f64.sqrt (f64.div (local.get $vs) (local.get $c2))) (local.get $eps)))))))))
