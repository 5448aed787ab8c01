// The custom views of /app, by the name an operation's description gives (`present.view`). The
// home page shows the view registered for the first such operation; a model with none gets a
// plain home page. Adding a view: a module here, and its name on the operation's descriptor.
import { Dashboard } from './dashboard.js';

export const customViews = { dashboard: Dashboard };
