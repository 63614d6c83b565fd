import { notifications } from '@mantine/notifications';
import { messageOf } from '../api/field-errors.ts';

export function notifyDone(message: string): void {
  notifications.show({ color: 'green', message });
}

export function notifyFailed(title: string, error: unknown): void {
  notifications.show({ color: 'red', title, message: messageOf(error), autoClose: 8000 });
}
