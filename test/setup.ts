/** Every test sees the weights of every model, as users of the main entry do. */
import "../src/model/weights/default.js";
